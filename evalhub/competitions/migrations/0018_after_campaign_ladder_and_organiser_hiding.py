"""The evaluation after the campaign continues the Ladder of the test sets it
copies (``TestSet.copied_from``, linked here for the copies made before) and exists
once per task; the organisers' hiding of a run is recorded apart from its team's."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def link_copies(apps, schema_editor):
    """The copies made before: each test set of an evaluation after the campaign
    copied the one of the same slug in the last official phase."""
    Phase = apps.get_model("competitions", "Phase")
    TestSet = apps.get_model("competitions", "TestSet")
    for after in Phase.objects.filter(after_campaign=True):
        official = Phase.objects.filter(task_id=after.task_id, after_campaign=False)
        last = official.order_by("-closes_at", "-order").first()
        if last is None:
            continue
        sources = dict(TestSet.objects.filter(phase=last).values_list("slug", "pk"))
        for copy in TestSet.objects.filter(phase=after, copied_from=None):
            if copy.slug in sources:
                copy.copied_from_id = sources[copy.slug]
                copy.save(update_fields=["copied_from"])


class Migration(migrations.Migration):
    dependencies = [
        ("competitions", "0017_files_in_one_order"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="submission",
            name="hidden_by_organisers_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="submission",
            name="hidden_by_organisers_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="testset",
            name="copied_from",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="copies",
                to="competitions.testset",
            ),
        ),
        migrations.RunPython(link_copies, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="phase",
            constraint=models.UniqueConstraint(
                condition=models.Q(("after_campaign", True)),
                fields=("task",),
                name="phase_one_after_campaign",
            ),
        ),
        migrations.AddConstraint(
            model_name="submission",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("hidden_by_organisers_at__isnull", True),
                    ("hidden", True),
                    _connector="OR",
                ),
                name="submission_organiser_hidden_is_hidden",
            ),
        ),
    ]
