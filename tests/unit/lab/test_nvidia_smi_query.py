"""nvidia-smi's query modes as the 550 driver prints them: --query-gpu CSV, -q, -i, topo -m, -h."""

from __future__ import annotations

import csv
import io

import pytest

from tests.unit.lab.kubectl_cluster import Lab
from tests.unit.lab.test_nvidia_smi import _lab, _pod

SMI = "kubectl exec -n gpu-operator nvidia-driver-daemonset-abcde -- nvidia-smi"
DOCUMENTED = (
    "index,name,uuid,memory.total,memory.used,utilization.gpu,temperature.gpu,"
    "power.draw,mig.mode.current,pci.bus_id"
)


@pytest.fixture
def busy() -> Lab:
    lab = _lab([None] * 7 + [{"1g.10gb": 7}])
    _pod(lab, "train", "default", "0,1")
    return lab


def test_query_gpu_prints_the_documented_fields_as_csv_with_units(busy: Lab) -> None:
    text = busy.out(f"{SMI} --query-gpu={DOCUMENTED} --format=csv")
    rows = list(csv.reader(io.StringIO(text), skipinitialspace=True))
    assert rows[0] == [
        "index",
        "name",
        "uuid",
        "memory.total [MiB]",
        "memory.used [MiB]",
        "utilization.gpu [%]",
        "temperature.gpu",
        "power.draw [W]",
        "mig.mode.current",
        "pci.bus_id",
    ]
    assert len(rows) == 9
    first, idle, mig = rows[1], rows[3], rows[8]
    assert first[:2] == ["0", "NVIDIA H100 80GB HBM3"] and first[2].startswith("GPU-")
    assert first[3] == "81559 MiB" and first[4].endswith(" MiB") and int(first[4][:-4]) > 1000
    assert first[5].endswith(" %") and int(first[5][:-2]) > 80  # the training pod's GPU
    assert idle[4] == "1 MiB" and idle[5] == "0 %"
    assert first[7].endswith(" W") and len(first[7].split(".")[1]) == 4  # two decimals + " W"
    assert first[8] == "Disabled" and mig[8] == "Enabled" and mig[5] == "[N/A]"
    assert first[9] == "00000000:18:00.0"


def test_noheader_and_nounits_and_a_gpu_list(busy: Lab) -> None:
    text = busy.out(
        f"{SMI} --query-gpu=index,memory.total,power.draw -i 0,3 --format=csv,noheader,nounits"
    )
    lines = text.split("\n")
    assert [line.split(", ")[:2] for line in lines] == [["0", "81559"], ["3", "81559"]]
    assert "W" not in text and "MiB" not in text


def test_a_field_nvidia_smi_does_not_know_is_refused_by_name(busy: Lab) -> None:
    result = busy.run(f"{SMI} --query-gpu=index,gpu.temp --format=csv")
    assert result.code == 2
    assert result.text.startswith('Field "gpu.temp" is not a valid field to query.')


def test_query_gpu_without_a_format_is_the_usage_error(busy: Lab) -> None:
    result = busy.run(f"{SMI} --query-gpu=index")
    assert result.code == 2 and "Please run 'nvidia-smi -h' for help." in result.text


def test_q_with_d_prints_only_the_sections_asked_for(busy: Lab) -> None:
    text = busy.out(f"{SMI} -q -d MEMORY,TEMPERATURE -i 1")
    assert "==============NVSMI LOG==============" in text
    assert "Attached GPUs                             : 8" in text
    assert text.count("\nGPU 00000000:") == 1 and "GPU 00000000:28:00.0" in text
    assert "    FB Memory Usage\n        Total                             : 81559 MiB" in text
    assert "GPU Current Temp" in text
    assert "Product Name" not in text and "Power Draw" not in text


def test_q_alone_prints_identity_and_every_section(busy: Lab) -> None:
    text = busy.out(f"{SMI} -q -i 7")
    for line in (
        "    Product Name                          : NVIDIA H100 80GB HBM3",
        "    MIG Mode\n        Current                           : Enabled",
        "    ECC Errors",
        "    GPU Power Readings",
        "        Gpu                               : N/A",
    ):
        assert line in text


def test_an_unknown_display_section_or_gpu_is_refused(busy: Lab) -> None:
    assert busy.run(f"{SMI} -q -d NOPE").code == 2
    missing = busy.run(f"{SMI} -i 9")
    assert missing.code == 6 and missing.text.startswith("No devices were found")


def test_i_narrows_the_summary_screen_to_one_gpu(busy: Lab) -> None:
    text = busy.out(f"{SMI} -i 2")
    assert text.count("NVIDIA H100 80GB HBM3") == 1


def test_topo_m_shows_nvlink_between_every_gpu_pair_and_the_nics_numa(busy: Lab) -> None:
    text = busy.out(f"{SMI} topo -m")
    rows = {line.split("\t")[0]: line.split("\t") for line in text.split("\n") if "\t" in line}
    header = rows[""]
    gpu0 = [cell.strip() for cell in rows["GPU0"]]
    gpu5 = [cell.strip() for cell in rows["GPU5"]]
    assert [gpu0[header.index(f"GPU{i}")] for i in range(8)] == ["X"] + ["NV18"] * 7
    assert gpu0[header.index("NIC0")] == "PXB" and gpu0[header.index("NIC4")] == "SYS"
    assert gpu0[header.index("CPU Affinity")] == "0-55,112-167"
    assert gpu5[header.index("NUMA Affinity")] == "1"
    assert "  NV#  = Connection traversing a bonded set of # NVLinks" in text
    assert "  NIC0: mlx5_0" in text


def test_h_prints_the_usage_that_the_usage_error_points_to(busy: Lab) -> None:
    text = busy.out(f"{SMI} -h")
    assert text.startswith("NVIDIA System Management Interface -- v550.127.08")
    for option in ("--query-gpu", "--format=", "-d,   --display=", "-i,   --id="):
        assert option in text


def test_mig_lgip_lists_the_media_extension_profile(busy: Lab) -> None:
    text = busy.out(f"{SMI} mig -lgip")
    assert "|   7  MIG 1g.10gb+me    20     0/1        9.75       No     16" in text
    profiles = [line.split()[3] for line in text.split("\n") if " MIG " in line]
    assert profiles == ["1g.10gb", "1g.10gb+me", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb",
                        "7g.80gb"]  # fmt: skip
