from django.db import migrations, models


class Migration(migrations.Migration):
    """Final-run choice and hidden runs. Phases that exist already keep their
    ranking (0: every run counts); new phases default to one final run."""

    dependencies = [
        ("competitions", "0002_submission_worker_heartbeat"),
    ]

    operations = [
        migrations.AddField(
            model_name="phase",
            name="max_final_runs",
            field=models.PositiveIntegerField(default=0),
            preserve_default=False,
        ),
        migrations.AlterField(
            model_name="phase",
            name="max_final_runs",
            field=models.PositiveIntegerField(
                default=1,
                help_text="Final runs a team may choose for the private test sets' "
                "ranking (a team that chooses none is ranked by its best public run); "
                "0: every run counts and the best one per team is ranked",
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="hidden",
            field=models.BooleanField(
                default=False, help_text="Shown to its team and the organisers only"
            ),
        ),
        migrations.AddField(
            model_name="submission",
            name="final_selected",
            field=models.BooleanField(default=False),
        ),
        migrations.AddField(
            model_name="taskartefact",
            name="runs",
            field=models.JSONField(blank=True, default=list),
        ),
        migrations.AddField(
            model_name="submission",
            name="final_selected_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
