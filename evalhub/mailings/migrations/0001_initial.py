import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import evalhub.competitions.markdown


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("competitions", "0020_time_and_size_rules"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="Message",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True,
                        primary_key=True,
                        serialize=False,
                        verbose_name="ID",
                    ),
                ),
                ("subject", models.CharField(max_length=150)),
                (
                    "body",
                    models.TextField(
                        validators=[evalhub.competitions.markdown.validate]
                    ),
                ),
                ("body_html", models.TextField(editable=False)),
                ("audience", models.CharField(max_length=50)),
                ("audience_label", models.CharField(max_length=250)),
                ("teams_count", models.PositiveIntegerField(default=0)),
                ("recipients", models.PositiveIntegerField(default=0)),
                ("announced", models.BooleanField(default=False)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                (
                    "author",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "task",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="team_messages",
                        to="competitions.sharedtask",
                    ),
                ),
                (
                    "team",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to="competitions.team",
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-pk"],
            },
        ),
        migrations.CreateModel(
            name="Delivery",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True,
                        primary_key=True,
                        serialize=False,
                        verbose_name="ID",
                    ),
                ),
                ("team_name", models.CharField(max_length=100)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("pending", "Waiting to be sent"),
                            ("sent", "Sent"),
                            ("skipped", "Not sent"),
                            ("failed", "Failed"),
                        ],
                        db_index=True,
                        default="pending",
                        max_length=16,
                    ),
                ),
                ("reason", models.CharField(blank=True, max_length=300)),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("retry_at", models.DateTimeField(blank=True, null=True)),
                ("sent_at", models.DateTimeField(blank=True, null=True)),
                (
                    "user",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "message",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="deliveries",
                        to="mailings.message",
                    ),
                ),
            ],
            options={
                "ordering": ["team_name", "pk"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("message", "user"), name="delivery_once_per_recipient"
                    )
                ],
            },
        ),
    ]
