from django.conf import settings
from django.db import migrations, models


def _earliest_organiser_owns(apps, schema_editor):  # noqa: ANN001, ANN202
    """Existing tasks: the organiser added first (the creator, on every path that
    creates tasks) becomes the owner."""
    SharedTask = apps.get_model("competitions", "SharedTask")
    through = SharedTask.organisers.through
    for task in SharedTask.objects.filter(owner__isnull=True).iterator():
        first = (
            through.objects.filter(sharedtask_id=task.pk)
            .order_by("pk")
            .values_list("user_id", flat=True)
            .first()
        )
        if first is not None:
            SharedTask.objects.filter(pk=task.pk).update(owner_id=first)


class Migration(migrations.Migration):
    dependencies = [
        ("competitions", "0009_analysis_figure_pdf"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="sharedtask",
            name="owner",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=models.deletion.SET_NULL,
                related_name="owned_tasks",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.RunPython(_earliest_organiser_owns, migrations.RunPython.noop),
    ]
