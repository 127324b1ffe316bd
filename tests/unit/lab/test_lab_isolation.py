"""Labs forked from one template share its objects (and, since writes keep unchanged parts,
parts of them): random sequences of the lab's own commands on one lab never change the
template or another learner's lab, and a forked lab reaches the same world as the same lab
built from scratch and given the same commands.
"""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulators.lab import LabSession
from simulators.lab.session_state import SessionState
from simulators.lab.tickets import load_ticket
from simulators.lab.world import build_world, template_world

TICKET = "pending-workspace"  # MIG-capable nodes (strategy single) and a Run:ai project
SEED = 37

NODES = st.sampled_from(["gpu-node1", "gpu-node2", "gpu-node3"])
WORDS = st.sampled_from(["a", "b", "research", "x-1"])
DAEMONSETS = st.sampled_from(
    ["gpu-feature-discovery", "nvidia-dcgm-exporter", "nvidia-device-plugin-daemonset"]
)
DEPLOYMENTS = st.sampled_from(
    [("gpu-operator", "gpu-operator"), ("runai", "cluster-sync"), ("kube-system", "coredns")]
)


def _deployment(template: str) -> st.SearchStrategy[str]:
    return DEPLOYMENTS.flatmap(
        lambda d: st.just(template.format(ns=d[0], name=d[1]))  # type: ignore[misc]
    )


COMMANDS = st.one_of(
    st.builds("kubectl label node {} team={} --overwrite".format, NODES, WORDS),
    st.builds("kubectl label node {} team-".format, NODES),
    st.builds("kubectl annotate ns default note={} --overwrite".format, WORDS),
    _deployment("kubectl annotate deployment {name} -n {ns} note=hi --overwrite"),
    _deployment(
        "kubectl patch deployment {name} -n {ns} --type merge "
        """-p '{{"metadata":{{"labels":{{"patched":"yes"}}}}}}'"""
    ),
    _deployment(
        "kubectl patch deployment {name} -n {ns} "
        """-p '{{"spec":{{"template":{{"metadata":{{"annotations":{{"restart":"1"}}}}}}}}}}'"""
    ),
    st.builds(
        "kubectl patch node {} --type json "
        """-p '[{{"op":"add","path":"/metadata/labels/zone","value":"{}"}}]'""".format,
        NODES,
        WORDS,
    ),
    st.builds(
        "kubectl scale deployment {} -n {} --replicas={}".format,
        st.sampled_from(["cluster-sync", "pod-grouper"]),
        st.just("runai"),
        st.integers(0, 3),
    ),
    _deployment("kubectl rollout restart deployment {name} -n {ns}"),
    _deployment("kubectl delete deployment {name} -n {ns}"),
    st.builds("kubectl drain {} --ignore-daemonsets".format, NODES),
    st.builds("kubectl cordon {}".format, NODES),
    st.builds("kubectl uncordon {}".format, NODES),
    st.builds("kubectl delete pods -n gpu-operator -l app={}".format, DAEMONSETS),
    st.builds("kubectl delete pods -n runai -l app={}".format, st.sampled_from(["cluster-sync"])),
    st.builds("kubectl create configmap cm-{} --from-literal=k={}".format, WORDS, WORDS),
    st.builds("kubectl create deployment web-{} --image=nginx --replicas=2".format, WORDS),
    st.builds(
        "kubectl label node {} nvidia.com/mig.config={} --overwrite".format,
        NODES,
        st.sampled_from(["all-1g.10gb", "all-3g.40gb", "all-disabled"]),
    ),
    st.builds(
        "runai workspace submit nb-{} -p team-vision -i jupyter/scipy-notebook "
        "--gpu-portion-request 0.5".format,
        WORDS,
    ),
    st.builds("runai training submit tr-{} -p team-vision -i pytorch -g 1".format, WORDS),
    st.just("runai workspace delete nb-alice -p team-vision"),
    st.just("kubectl get pods -A"),
)


def world_json(lab: LabSession | object) -> str:
    world = getattr(lab, "world", lab)
    return json.dumps(world.to_json(), sort_keys=True)  # type: ignore[attr-defined]


def built_from_scratch() -> LabSession:
    ticket = load_ticket(TICKET)
    state = SessionState(ticket_id=ticket.id, seed=SEED, world=build_world(ticket.world, SEED))
    return LabSession(state, ticket)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(commands=st.lists(COMMANDS, min_size=1, max_size=6))
def test_a_labs_commands_leave_the_template_and_another_lab_unchanged_and_match_a_lab_built_from_scratch(  # noqa: E501
    commands: list[str],
) -> None:
    template = template_world(load_ticket(TICKET).world, SEED)
    template_before = world_json(template)
    mine, theirs = LabSession.new(TICKET, seed=SEED), LabSession.new(TICKET, seed=SEED)
    theirs_before = world_json(theirs)
    for line in commands:
        assert "internal error" not in mine.run(line).output, line
        assert world_json(template) == template_before, line
        assert world_json(theirs) == theirs_before, line
    scratch = built_from_scratch()
    for line in commands:
        scratch.run(line)
    assert world_json(mine) == world_json(scratch)
    # Reopened from its snapshot (sharing what it still has with the template), the lab goes
    # on as the kept one, and its writes stay its own too.
    reopened = LabSession.from_json(mine.encode())
    assert world_json(reopened) == world_json(mine)
    for lab in (reopened, mine, theirs):
        lab.run("kubectl label node gpu-node1 nvidia.com/mig.config=all-1g.10gb --overwrite")
        lab.run("kubectl delete pods -n gpu-operator -l app=nvidia-dcgm-exporter")
        if lab is reopened:
            assert world_json(template) == template_before
            assert world_json(theirs) == theirs_before
    assert world_json(reopened) == world_json(mine)
    assert world_json(template) == template_before
