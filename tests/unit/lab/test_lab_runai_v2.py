"""The runai CLI as Run:ai's v2 reference documents it for the cluster release the lab runs."""

from __future__ import annotations

import json
import re

import yaml

from simulators.controllers import runai as runai_ctl
from simulators.lab import LabSession
from simulators.lab.world_cluster import RUNAI_VERSION
from tests.unit.lab.lab_helpers import done, wait


def test_runai_version_is_a_release_that_has_the_v2_clis_training_pytorch(
    validate: LabSession,
) -> None:
    first = validate.run("runai version").output.split("\n")[0]
    release = first.removeprefix("Version: ")
    major, minor = (int(part) for part in release.split(".")[:2])
    # v2 needs 2.18+; `runai training pytorch submit` (which the tickets use) arrived in 2.20.
    assert (major, minor) >= (2, 20)
    assert release == RUNAI_VERSION


def test_the_helm_chart_and_the_control_plane_image_report_the_same_release(
    validate: LabSession,
) -> None:
    listed = validate.run("helm list -n runai").output
    assert f"runai-cluster-{RUNAI_VERSION}" in listed
    images = validate.run(
        "kubectl get deploy -n runai "
        "-o jsonpath='{.items[*].spec.template.spec.containers[*].image}'"
    ).output
    assert f"runai:{RUNAI_VERSION}" in images
    assert "2.17" not in listed + images


def _pod_names(session: LabSession, namespace: str) -> list[str]:
    out = session.run(f"kubectl get pods -n {namespace} -o name").output
    return [line.removeprefix("pod/") for line in out.split("\n") if line]


def test_no_master_runs_only_the_workers_named_from_worker_0(validate: LabSession) -> None:
    validate.run("runai login")
    validate.run(
        "runai training pytorch submit dist -p team-a -i gcr.io/run-ai-demo/quickstart-distributed"
        " --workers 2 -g 1 --no-master"
    )
    wait(validate, 3)
    assert _pod_names(validate, "runai-team-a") == ["dist-worker-0", "dist-worker-1"]
    group = validate.world.api.get("podgroups.scheduling.run.ai", "pg-dist-0", "runai-team-a")
    assert group["spec"]["minMember"] == 2


def test_the_gang_counts_the_master_so_three_workers_of_eight_do_not_fit_24_gpus(
    validate: LabSession,
) -> None:
    validate.run("runai login")
    validate.run(
        "runai training pytorch submit big -p team-b -i nvcr.io/nvidia/pytorch:24.05-py3 "
        "--workers 3 -g 8"
    )
    wait(validate, 3)
    group = validate.world.api.get("podgroups.scheduling.run.ai", "pg-big-0", "runai-team-b")
    assert group["spec"]["minMember"] == 4  # the master and three workers: 32 GPUs
    pods = validate.run("kubectl get pods -n runai-team-b").output
    assert pods.count("Pending") == 4 and "Running" not in pods
    validate.run("runai training pytorch delete big -p team-b")
    validate.run(
        "runai training pytorch submit fits -p team-b -i nvcr.io/nvidia/pytorch:24.05-py3 "
        "--workers 2 -g 8"
    )
    wait(validate, 4)
    assert validate.run("kubectl get pods -n runai-team-b").output.count("Running") == 3


def test_describe_names_the_workers_and_the_master(validate: LabSession) -> None:
    validate.run("runai login")
    validate.run(
        "runai training pytorch submit d2 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 "
        "--workers 2 -g 1"
    )
    out = validate.run("runai training pytorch describe d2 -p team-a").output
    assert "  Workers:          2\n  Master pod:       yes" in out


def test_no_master_is_a_distributed_flag_only(validate: LabSession) -> None:
    validate.run("runai login")
    out = validate.run("runai training submit t1 -p team-a -i x -g 1 --no-master").output
    assert out == "Error: unknown flag: --no-master"


def _three_workloads(session: LabSession) -> None:
    session.run("runai login")
    session.run("runai training submit t1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1")
    session.run("runai training submit t2 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1")
    session.run(
        "runai workspace submit nb1 -p team-a -i jupyter/scipy-notebook --gpu-portion-request 0.5"
    )
    wait(session, 3)


def test_workload_list_has_the_documented_headers_and_preemptible_column(
    validate: LabSession,
) -> None:
    _three_workloads(validate)
    lines = validate.run("runai workload list -p team-a").output.split("\n")
    assert [h.strip() for h in lines[0].split("  ") if h.strip()] == [
        "Workload",
        "Type",
        "Status",
        "Project",
        "Preemptible",
        "Running/Requested Pods",
        "GPU Allocation",
    ]
    rows = {line.split()[0]: line.split()[1:] for line in lines[2:]}
    assert rows["t1"] == ["Training", "Running", "team-a", "Yes", "1/1", "1.00"]
    assert rows["nb1"] == ["Workspace", "Running", "team-a", "No", "1/1", "0.50"]


def test_list_filters_by_type_and_status_and_pages_with_limit_and_offset(
    validate: LabSession,
) -> None:
    _three_workloads(validate)

    def names(command: str) -> list[str]:
        return [line.split()[0] for line in validate.run(command).output.split("\n")[2:]]

    assert names("runai workload list -p team-a --type workspace") == ["nb1"]
    assert names("runai workload list -p team-a --type Training") == ["t1", "t2"]
    assert names("runai training list -p team-a --state running") == ["t1", "t2"]
    assert names("runai workload list -p team-a --limit 2") == ["t1", "t2"]
    assert names("runai workload list -p team-a --limit 1 --offset 1") == ["t2"]
    assert validate.run("runai workspace list -p team-a --status Pending").output == (
        "No workloads found"
    )
    assert validate.run("runai workload list -p team-a --limit x").output == (
        'Error: invalid argument "x" for "--limit" flag: strconv.ParseInt: parsing "x": '
        "invalid syntax"
    )


def test_list_prints_json_and_yaml_and_drops_headers_on_request(validate: LabSession) -> None:
    _three_workloads(validate)
    items = json.loads(validate.run("runai training list -p team-a --json").output)
    assert items[0] == {
        "workload": "t1",
        "type": "Training",
        "status": "Running",
        "project": "team-a",
        "preemptible": "Yes",
        "runningRequestedPods": "1/1",
        "gpuAllocation": "1.00",
    }
    loaded = yaml.safe_load(validate.run("runai workspace list -p team-a --yaml").output)
    assert [item["workload"] for item in loaded] == ["nb1"]
    bare = validate.run("runai training list -p team-a --no-headers").output.split("\n")
    assert [line.split()[0] for line in bare] == ["t1", "t2"]
    nodes = json.loads(validate.run("runai node list --json").output)
    assert {n["node"] for n in nodes} == {"gpu-node1", "gpu-node2", "gpu-node3"}
    projects = yaml.safe_load(validate.run("runai project list --yaml").output)
    assert {p["project"] for p in projects} >= {"team-a", "team-b"}


def test_submit_without_a_name_generates_one_from_the_workload_type(validate: LabSession) -> None:
    validate.run("runai login")
    out = validate.run(
        "runai training pytorch submit -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 "
        "--workers 1 -g 1"
    ).output
    name = out.split("\n")[0].removeprefix("Creating distributed training workload ")[:-3]
    assert re.fullmatch(r"pytorch-[0-9a-f]{12}", name)
    out = validate.run("runai workspace submit -p team-a -i jupyter/scipy-notebook -g 1").output
    assert re.fullmatch(r"Creating workspace workspace-[0-9a-f]{12}\.\.\.", out.split("\n")[0])
    listed = validate.run("runai workload list -p team-a").output
    assert name in listed


def test_name_prefix_adds_the_first_free_index(validate: LabSession) -> None:
    validate.run("runai login")
    submit = "runai workspace submit -p team-a -i jupyter/scipy-notebook -g 1 --name-prefix jupyter"
    assert validate.run(submit).output.startswith("Creating workspace jupyter-1...")
    assert validate.run(submit).output.startswith("Creating workspace jupyter-2...")


def test_cpu_requests_and_limits_reach_the_pods_resources(validate: LabSession) -> None:
    validate.run("runai login")
    validate.run(
        "runai training submit c1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1 "
        "--cpu-core-request 0.5 --cpu-memory-request 500M --cpu-core-limit 2 --cpu-memory-limit 1G"
    )
    wait(validate, 2)
    pod = validate.world.api.get("pods", "c1-0-0", "runai-team-a")
    resources = pod["spec"]["containers"][0]["resources"]
    assert resources["requests"] == {"nvidia.com/gpu": "1", "cpu": "0.5", "memory": "500M"}
    assert resources["limits"] == {"nvidia.com/gpu": "1", "cpu": "2", "memory": "1G"}
    assert validate.run(
        "runai training submit c2 -p team-a -i x -g 1 --cpu-core-request a"
    ).output == (
        'Error: invalid argument "a" for "--cpu-core-request" flag: strconv.ParseFloat: '
        'parsing "a": invalid syntax'
    )


def test_attach_submits_and_says_in_one_line_that_there_is_no_shell(validate: LabSession) -> None:
    validate.run("runai login")
    out = validate.run(
        "runai workspace submit nb9 -p team-a -i jupyter/scipy-notebook -g 1 --attach"
    ).output.split("\n")
    assert out[0] == "Creating workspace nb9..."
    assert out[2] == (
        "The lab has no container shell to attach to: the workload was submitted; run one "
        "command in it with 'runai workspace exec nb9 -- <command>'"
    )
    assert "nb9" in validate.run("runai workspace list -p team-a").output


def test_inference_serving_port_opens_the_container_port(validate: LabSession) -> None:
    validate.run("runai login")
    out = validate.run(
        "runai inference submit chat -p team-a -i vllm/vllm-openai -g 1 "
        "--serving-port container=8000,protocol=http"
    ).output
    assert out.startswith("Creating inference chat...")
    wait(validate, 2)
    pod = validate.world.api.get("pods", "chat-0-0", "runai-team-a")
    assert pod["spec"]["containers"][0]["ports"] == [{"containerPort": 8000, "protocol": "TCP"}]
    bad = validate.run("runai inference submit c2 -p team-a -i x -g 1 --serving-port http").output
    assert bad.startswith('Error: invalid --serving-port "http"')
    assert validate.run(
        "runai training submit t9 -p team-a -i x -g 1 --serving-port 80"
    ).output == ("Error: unknown flag: --serving-port")


def test_describe_prints_json_and_yaml_and_hides_a_section_set_false(validate: LabSession) -> None:
    validate.run("runai login")
    validate.run("runai training submit t1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1")
    wait(validate, 3)
    doc = json.loads(validate.run("runai training describe t1 -p team-a -o json").output)
    assert doc["general"]["Name"] == "t1" and doc["general"]["Preemptible"] == "true"
    assert doc["pods"] == [
        {
            "Name": "t1-0-0",
            "Status": "Running",
            "Node": doc["pods"][0]["Node"],
            "Image": "nvcr.io/nvidia/pytorch:24.05-py3",
        }
    ]
    assert doc["pods"][0]["Node"].startswith("gpu-node")
    loaded = yaml.safe_load(validate.run("runai training describe t1 -p team-a -o yaml").output)
    assert loaded["compute"]["GPU devices"] == "1"
    table = validate.run("runai training describe t1 -p team-a --pods").output
    assert "\nPods\n  Name      Status     Node" in table
    hidden = validate.run("runai training describe t1 -p team-a --pods=false --events=false")
    assert "Pods" not in hidden.output and "Events" not in hidden.output
    assert hidden.output.startswith("Workload Summary\n  Name:             t1")
    assert validate.run("runai training describe t1 -p team-a -o wide").output == (
        'Error: invalid output format "wide": use one of table, json, yaml'
    )


def test_logs_with_timestamps_and_since(validate: LabSession) -> None:
    validate.run("runai login")
    validate.run("runai training submit t1 -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1")
    wait(validate, 4)
    plain = validate.run("runai training logs t1 -p team-a").output.split("\n")
    assert plain and plain[0]
    stamped = validate.run("runai training logs t1 -p team-a --timestamps").output.split("\n")
    assert len(stamped) == len(plain)
    for line, text in zip(stamped, plain, strict=True):
        stamp, _, rest = line.partition(" ")
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z", stamp) and rest == text
    assert validate.run("runai training logs t1 -p team-a --since 1h").output.split("\n") == plain
    assert validate.run("runai training logs t1 -p team-a --since 1s").output == ""
    assert validate.run("runai training logs t1 -p team-a --since soon").output == (
        'Error: invalid argument "soon" for "--since" flag: time: invalid duration "soon"'
    )


def test_workspace_bash_port_forward_and_attach_say_there_is_no_container_shell(
    validate: LabSession,
) -> None:
    validate.run("runai login")
    validate.run("runai workspace submit nb1 -p team-a -i jupyter/scipy-notebook -g 1")
    wait(validate, 3)
    bash = validate.run("runai workspace bash nb1 -p team-a")
    assert bash.output == (
        "The lab has no container shell: run one command with "
        "'runai workspace exec nb1 -- <command>' instead"
    )
    assert bash.exit_code == 1
    forward = validate.run("runai workspace port-forward nb1 -p team-a --port 8888:8888").output
    assert forward.startswith("Error: unknown flag: --port")
    forward = validate.run("runai workspace port-forward nb1 -p team-a").output
    assert forward.startswith("The lab has no container shell or network to forward a port to")
    assert validate.run("runai workspace attach nb1 -p team-a").output.startswith(
        "The lab has no container shell to attach to"
    )
    assert validate.run("runai workspace bash nope -p team-a").output == (
        'Error: workload "nope" not found in project team-a'
    )


def test_v1_top_node_prints_runai_clis_titled_tables_and_the_cluster_total(
    gang: LabSession,
) -> None:
    wait(gang, 3)
    out = gang.run("runai top node").output
    lines = out.split("\n")
    titles = [line for line in lines if line.startswith("──────◆")]
    assert titles == [
        "──────◆  GENERAL NODES INFO  ◆──────",
        "──────◆  CPU & MEMORY NODES INFO  ◆──────",
        "──────◆  GPU & GPU MEMORY NODES INFO  ◆──────",
        "──────◆  CLUSTER NODES INFO  ◆──────",
    ]
    assert "NAME       IP Address  ROLE    STATUS" in lines
    assert "gpu-node1  10.10.0.11  <none>  ready" in lines
    gpu_header = next(line for line in lines if "ALLOCATED UNITS" in line)
    assert gpu_header.split("│") == [
        "NAME       ",
        " CAPACITY  ALLOCATED UNITS  ALLOCATED FRACTION  USAGE  ",
        " CAPACITY     ALLOCATED  USAGE",
    ]
    node2 = [line for line in lines if line.startswith("gpu-node2  │ 8.00")]
    assert node2 and node2[0].split("│")[1].split() == ["8.00", "4", "4.00", "50.0%"]
    # nb-ana and nb-old hold 4 GPUs each of the three nodes' 24.
    assert lines[-1] == "Allocated/Total GPUs In Cluster:  8/24 (33%)"


def test_top_node_details_lists_each_nodes_gpu_pods(gang: LabSession) -> None:
    wait(gang, 3)
    out = gang.run("runai top node -d").output
    assert "NAMESPACE          NAME        GPU REQUESTS" in out
    assert "runai-team-vision  nb-ana-0-0  4" in out
    assert "Allocated GPUs In Node gpu-node2:  4 (50%)" in out
    assert gang.run("runai top job").output.startswith(
        'Error: unknown command "job" for "runai top"'
    )


def test_out_of_range_values_are_one_line_errors(validate: LabSession) -> None:
    validate.run("runai login")
    submit = "runai training submit c1 -p team-a -i x -g 1"
    assert validate.run(f"{submit} --cpu-core-request nan").output == (
        "Error: --cpu-core-request must be between 0.001 and 10000 cores"
    )
    assert validate.run(f"{submit} --cpu-memory-request 1e400").output == (
        'Error: invalid --cpu-memory-request "1e400": use a quantity such as 500M or 1G'
    )
    assert validate.run("runai training list -p team-a --limit 99999999999").output == (
        'Error: invalid argument "99999999999" for "--limit" flag: strconv.ParseInt: parsing '
        '"99999999999": value out of range'
    )
    assert validate.run("runai training list -p team-a --offset -1").output == (
        "Error: --offset must be 0 or more, not -1"
    )


def test_a_workload_whose_pods_the_api_refuses_gets_an_event_and_the_rest_runs(
    validate: LabSession,
) -> None:
    validate.run("runai login")
    bad = runai_ctl.workload_object("training", "bad", "team-a", "x")
    bad["spec"]["cpuCoreRequest"] = {"value": "lots"}
    validate.world.api.create("trainingworkloads.run.ai", bad, "runai-team-a")
    validate.run("runai training submit ok -p team-a -i nvcr.io/nvidia/pytorch:24.05-py3 -g 1")
    wait(validate, 3)
    assert "ok-0-0" in validate.run("kubectl get pods -n runai-team-a").output
    events = validate.run("kubectl get events -n runai-team-a").output
    assert "FailedCreate" in events and "trainingworkload/bad" in events.lower()


def test_help_lists_the_verbs_flags_with_the_references_words(validate: LabSession) -> None:
    validate.run("runai login")
    out = validate.run("runai training pytorch submit --help").output.split("\n")
    assert out[:4] == [
        "submit pytorch training",
        "",
        "Usage:",
        "  runai training pytorch submit [flags]",
    ]
    # pflag pads every flag to the longest one's column (--extended-resource stringArray).
    assert (
        "      --no-master                       Do not create a separate pod for the master" in out
    )
    assert (
        "  -g, --gpu-devices-request int32       GPU units to allocate for the job (e.g. 1, 2)"
        in out
    )
    assert (
        "      --extended-resource stringArray   Request access to an extended resource. Use the "
        "format: resource_name=quantity" in out
    )
    listing = validate.run("runai workspace list -h").output
    assert "      --status string    filter by workload state" in listing
    assert "--no-master" not in validate.run("runai training submit -h").output
    assert "exec" in validate.run("runai training pytorch --help").output


def test_the_validation_gang_check_wants_two_workers_not_two_pods(validate: LabSession) -> None:
    validate.run("runai login")
    validate.run(
        "runai training pytorch submit one -p team-a -i gcr.io/run-ai-demo/quickstart-distributed"
        " --workers 1 -g 1"
    )
    wait(validate, 4)
    assert validate.run("kubectl get pods -n runai-team-a").output.count("Running") == 2
    assert done(validate)["gang-starts"] is False  # a master and one worker
    validate.run(
        "runai training pytorch submit two -p team-a -i gcr.io/run-ai-demo/quickstart-distributed"
        " --workers 2 -g 1"
    )
    wait(validate, 4)
    assert done(validate)["gang-starts"] is True
