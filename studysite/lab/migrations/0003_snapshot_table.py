from django.db import migrations, models


def move_snapshots_out(apps, schema_editor):
    saved_lab = apps.get_model("lab", "SavedLab")
    lab_snapshot = apps.get_model("lab", "LabSnapshot")
    for pk, state in saved_lab.objects.values_list("pk", "state").iterator():
        lab_snapshot.objects.create(lab_id=pk, state=state)


def move_snapshots_back(apps, schema_editor):
    saved_lab = apps.get_model("lab", "SavedLab")
    lab_snapshot = apps.get_model("lab", "LabSnapshot")
    for pk, state in lab_snapshot.objects.values_list("lab_id", "state").iterator():
        saved_lab.objects.filter(pk=pk).update(state=state)


class Migration(migrations.Migration):
    dependencies = [
        ("lab", "0002_single_writer"),
    ]

    operations = [
        migrations.CreateModel(
            name="LabSnapshot",
            fields=[
                (
                    "lab",
                    models.OneToOneField(
                        on_delete=models.deletion.CASCADE,
                        primary_key=True,
                        related_name="snapshot",
                        serialize=False,
                        to="lab.savedlab",
                    ),
                ),
                ("state", models.JSONField()),
            ],
        ),
        migrations.AlterField(
            model_name="savedlab", name="state", field=models.JSONField(null=True)
        ),
        migrations.RunPython(move_snapshots_out, move_snapshots_back),
        migrations.RemoveField(model_name="savedlab", name="state"),
    ]
