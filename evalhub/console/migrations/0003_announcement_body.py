from django.db import migrations, models

import evalhub.competitions.markdown


class Migration(migrations.Migration):
    dependencies = [
        ("console", "0002_archive_export"),
    ]

    operations = [
        migrations.AddField(
            model_name="announcement",
            name="body",
            field=models.TextField(
                blank=True, validators=[evalhub.competitions.markdown.validate]
            ),
        ),
        migrations.AddField(
            model_name="announcement",
            name="body_html",
            field=models.TextField(blank=True, editable=False),
        ),
    ]
