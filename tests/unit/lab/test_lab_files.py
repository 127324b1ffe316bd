"""ls, cat, sed -i (any delimiter, g flag) and grep on the home folder."""

from __future__ import annotations

from simulators.lab import LabSession


def test_ls_lists_the_tickets_manifests(mixed: LabSession) -> None:
    # On the terminal, GNU ls pads its columns with a tab to the next tab stop.
    assert mixed.run("ls").output == "custom-mig-config.yaml\ttriton.yaml"


def test_cat_of_a_missing_file_is_cats_own_error(mixed: LabSession) -> None:
    assert mixed.run("cat nope.yaml").output == "cat: nope.yaml: No such file or directory"


def test_sed_in_place_with_another_delimiter_changes_the_file(mixed: LabSession) -> None:
    mixed.run("sed -i 's#nvidia.com/gpu: 1#nvidia.com/mig-1g.10gb: 1#g' triton.yaml")
    text = mixed.run("cat triton.yaml").output
    assert "nvidia.com/mig-1g.10gb: 1" in text
    assert "nvidia.com/gpu:" not in text


def test_sed_without_g_replaces_only_the_first_match_per_line(single: LabSession) -> None:
    single.world.state.files["a.txt"] = "aaa\naaa\n"
    single.run("sed -i 's/a/b/' a.txt")
    assert single.run("cat a.txt").output == "baa\nbaa"
    single.run("sed -i 's|a|c|g' a.txt")
    assert single.run("cat a.txt").output == "bcc\nbcc"


def test_sed_supports_groups_and_the_whole_match(single: LabSession) -> None:
    single.world.state.files["a.txt"] = "key: value\n"
    single.run(r"sed -i 's/\(key\): \(.*\)/\2=\1 [&]/' a.txt")
    assert single.run("cat a.txt").output == "value=key [key: value]"


def test_sed_errors_are_seds_words(mixed: LabSession) -> None:
    assert mixed.run("sed -i 's/a/b' triton.yaml").output.startswith("sed: -e expression #1, char")
    assert mixed.run("sed -i 's/a/b/' missing.yaml").output == (
        "sed: can't read missing.yaml: No such file or directory"
    )
    assert mixed.run("sed -i 's/a/b/'").output == "sed: no input files"


def test_sed_without_i_prints_and_leaves_the_file_alone(mixed: LabSession) -> None:
    out = mixed.run("sed 's/triton/TRITON/g' triton.yaml").output
    assert "name: TRITON" in out
    assert "name: triton" in mixed.run("cat triton.yaml").output


def test_grep_filters_stdin_and_files(mixed: LabSession) -> None:
    assert mixed.run("grep -i Nvidia.com/GPU triton.yaml").output.strip() == "nvidia.com/gpu: 1"
    assert mixed.run("cat triton.yaml | grep -c containers").output == "1"


def test_regexes_prone_to_catastrophic_backtracking_run_in_linear_time(single: LabSession) -> None:
    single.world.state.files["a.txt"] = "a" * 3000 + "\n"
    assert single.run("grep -E '(a+)+$' a.txt").output == "a" * 3000
    assert single.run("grep -cE '(a|a)*b' a.txt").output == "0"
