"""The evaluations after the campaign opened before their Ladder continued the
campaign's: each gets the ranking settings of the phase its test sets copy (when
that phase has some and it has none of its own)."""

from django.db import migrations

FIELDS = ("ladder", "ladder_margin", "bootstrap_samples", "seed", "alpha")


def copy_settings(apps, schema_editor):
    Phase = apps.get_model("competitions", "Phase")
    TestSet = apps.get_model("competitions", "TestSet")
    PhaseRanking = apps.get_model("rankings", "PhaseRanking")
    for after in Phase.objects.filter(after_campaign=True):
        if PhaseRanking.objects.filter(phase=after).exists():
            continue
        source = (
            TestSet.objects.filter(phase=after, copied_from__isnull=False)
            .values_list("copied_from__phase_id", flat=True)
            .first()
        )
        ranking = PhaseRanking.objects.filter(phase_id=source).first()
        if source is not None and ranking is not None:
            PhaseRanking.objects.create(
                phase=after, **{name: getattr(ranking, name) for name in FIELDS}
            )


class Migration(migrations.Migration):
    dependencies = [
        ("rankings", "0005_incremental_statistics"),
        ("competitions", "0018_after_campaign_ladder_and_organiser_hiding"),
    ]

    operations = [migrations.RunPython(copy_settings, migrations.RunPython.noop)]
