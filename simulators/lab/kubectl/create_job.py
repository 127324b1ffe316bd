"""kubectl create cronjob and create job (upstream's create_cronjob.go and create_job.go).

`create job NAME --image=IMAGE [-- COMMAND...]` builds a Job from flags; `create job NAME
--from=cronjob/NAME` reads the CronJob from the server (even under --dry-run=client, as kubectl
does) and makes what the CronJob controller would: the CronJob's jobTemplate, the annotation
`cronjob.kubernetes.io/instantiate: manual`, the jobTemplate's own labels and annotations, and an
ownerReference naming the CronJob as the Job's controller.
"""

from __future__ import annotations

import copy

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError, namespace, resolve
from simulators.lab.kubectl.create_names import Generator, image_flag, one_name
from simulators.lab.tool import Context


def _names(name: str, parsed: Parsed, rest: list[str]) -> list[str]:
    """The NAME and COMMAND words: NameFromCommandArgs counts the words before `--`."""
    return [name, *rest] if name else rest


def cronjob(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    """create cronjob NAME --image --schedule [--restart] [-- COMMAND...]."""
    missing = [flag for flag in ("image", "schedule") if not parsed.has(flag)]
    if missing:
        listed = ", ".join(f'"{flag}"' for flag in missing)
        raise KubectlError(f"error: required flag(s) {listed} not set")
    image = image_flag(parsed)[-1]
    name = one_name("create cronjob", _names(name, parsed, rest))
    container: Obj = {"image": image, "name": name, "resources": {}}
    if parsed.after_dashdash:
        container = {"command": list(parsed.after_dashdash), **container}
    return "cronjobs.batch", {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": name},
        "spec": {
            "jobTemplate": {
                "metadata": {"name": name},
                "spec": {
                    "template": {
                        "metadata": {},
                        "spec": {
                            "containers": [container],
                            "restartPolicy": parsed.value("restart") or "OnFailure",
                        },
                    }
                },
            },
            "schedule": parsed.value("schedule"),
        },
        "status": {},
    }


def job_generator(ctx: Context) -> Generator:
    """The generator of `create job`, reading --from's CronJob through `ctx`'s API."""

    def build(name: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
        name = one_name("create job", _names(name, parsed, rest))
        image, source = parsed.value("image") or "", parsed.value("from") or ""
        if bool(image) == bool(source):
            raise KubectlError("error: either --image or --from must be specified")
        if source and parsed.after_dashdash:
            raise KubectlError("error: cannot specify --from and command")
        if source:
            return "jobs.batch", _from_cronjob(ctx, parsed, name, source)
        container: Obj = {"image": image, "name": name, "resources": {}}
        if parsed.after_dashdash:
            container = {"command": list(parsed.after_dashdash), **container}
        return "jobs.batch", {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": name},
            "spec": {
                "template": {
                    "metadata": {},
                    "spec": {"containers": [container], "restartPolicy": "Never"},
                }
            },
            "status": {},
        }

    return build


def _source(ctx: Context, parsed: Parsed, source: str) -> Obj:
    """The object --from names, read as kubectl's resource builder reads `TYPE/NAME`."""
    kind, slash, name = source.partition("/")
    if slash and "/" in name:
        raise KubectlError(
            "error: arguments in resource/name form may not have more than one slash"
        )
    if slash and (not kind or not name or "," in kind):
        raise KubectlError(
            "error: arguments in resource/name form must have a single resource and name"
        )
    info = resolve(ctx.api, kind)
    if not slash:
        raise KubectlError("error: resource(s) were provided, but no name was specified")
    # The server's NotFound is kubectl's error as it stands (not "failed to create job").
    return ctx.api.get(info.key, name, namespace(parsed) if info.namespaced else None)


def _from_cronjob(ctx: Context, parsed: Parsed, name: str, source: str) -> Obj:
    """createJobFromCronJob: the CronJob's jobTemplate, owned by the CronJob."""
    cron = _source(ctx, parsed, source)
    if cron.get("kind") != "CronJob":
        package = str(cron.get("apiVersion", "v1")).rpartition("/")[2]
        raise KubectlError(f"error: unknown object type *{package}.{cron.get('kind')}")
    template = (cron.get("spec") or {}).get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    meta = cron.get("metadata") or {}
    metadata: Obj = {
        "name": name,
        "annotations": {
            "cronjob.kubernetes.io/instantiate": "manual",
            **(template_meta.get("annotations") or {}),
        },
    }
    if template_meta.get("labels"):
        metadata["labels"] = dict(template_meta["labels"])
    metadata["ownerReferences"] = [
        {
            "apiVersion": "batch/v1",
            "kind": "CronJob",
            "name": meta.get("name", ""),
            "uid": meta.get("uid", ""),
            "controller": True,
        }
    ]
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": metadata,
        "spec": copy.deepcopy(template.get("spec") or {}),
        "status": {},
    }
