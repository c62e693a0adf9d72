from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("competitions", "0020_time_and_size_rules"),
    ]

    operations = [
        migrations.AddField(
            model_name="taskartefact",
            name="inputs_digest",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
    ]
