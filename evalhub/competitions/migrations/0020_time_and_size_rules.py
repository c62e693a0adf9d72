from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("competitions", "0019_merge_20261128_0721"),
    ]

    operations = [
        migrations.AddField(
            model_name="sharedtask",
            name="max_team_size",
            field=models.PositiveSmallIntegerField(
                blank=True, help_text="Most members per team (empty: no cap)", null=True
            ),
        ),
        migrations.AddField(
            model_name="sharedtask",
            name="pause_message",
            field=models.CharField(
                blank=True,
                help_text="Why submissions are paused (plain text, shown to teams)",
                max_length=300,
            ),
        ),
        migrations.AddField(
            model_name="sharedtask",
            name="submissions_paused",
            field=models.BooleanField(
                default=False, help_text="No run is accepted while ticked"
            ),
        ),
        migrations.AddField(
            model_name="testset",
            name="reveal_at_phase_end",
            field=models.BooleanField(
                default=False,
                help_text="Reveal the private scores when the phase closes",
            ),
        ),
    ]
