import json
import zlib

from django.db import migrations, models


def unpack_snapshots(apps, schema_editor):
    """Going back: the versions before this one read only `state`."""
    lab_snapshot = apps.get_model("lab", "LabSnapshot")
    packed = lab_snapshot.objects.filter(packed__isnull=False)
    for pk, data in packed.values_list("pk", "packed").iterator():
        state = json.loads(zlib.decompress(data))
        lab_snapshot.objects.filter(pk=pk).update(state=state, packed=None)


class Migration(migrations.Migration):
    dependencies = [
        ("lab", "0003_snapshot_table"),
    ]

    # Snapshots saved as JSON stay so (the site reads both) and are packed at their next fold.
    operations = [
        migrations.AddField(
            model_name="labsnapshot",
            name="packed",
            field=models.BinaryField(null=True),
        ),
        migrations.AlterField(
            model_name="labsnapshot",
            name="state",
            field=models.JSONField(null=True),
        ),
        migrations.RunPython(migrations.RunPython.noop, unpack_snapshots),
    ]
