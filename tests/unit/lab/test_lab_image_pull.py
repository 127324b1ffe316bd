"""The image-pull ticket: a "won't schedule" that is a registry login, and its traps."""

from __future__ import annotations

from simulators.lab import LabSession
from tests.unit.lab.lab_helpers import done, run_all, wait

NS = "runai-team-nlp"
KEY = "nvapi-Qm3xT7acmeR9kLp2vW8sYd4Hf6Jz1NbC"
SECRET = (
    f"kubectl create secret docker-registry ngc-acme -n {NS} --docker-server=nvcr.io "
    f"--docker-username='$oauthtoken' --docker-password={KEY}"
)
PATCH_SA = (
    f"kubectl patch serviceaccount default -n {NS} "
    """-p '{"imagePullSecrets":[{"name":"ngc-acme"}]}'"""
)
RECREATE = f"kubectl delete pod ft-llama-0-0 -n {NS}"
UNAUTHORIZED = (
    'Failed to pull image "nvcr.io/acme-research/nlp/llama-finetune:2.3": failed to pull and '
    'unpack image "nvcr.io/acme-research/nlp/llama-finetune:2.3"'
)


def pod_state(session: LabSession) -> str:
    return session.run(f"kubectl get pod ft-llama-0-0 -n {NS}").output.splitlines()[-1]


def test_the_training_looks_pending_but_was_scheduled_and_cannot_pull(pull: LabSession) -> None:
    out = pull.run("runai training describe ft-llama -p team-nlp").output
    assert "Status:           Pending" in out
    assert "Successfully assigned runai-team-nlp/ft-llama-0-0 to gpu-node" in out
    wide = pull.run(f"kubectl get pods -n {NS} -o wide").output
    assert "gpu-node" in wide.splitlines()[1]
    assert any(reason in wide for reason in ("ErrImagePull", "ImagePullBackOff"))
    described = pull.run(f"kubectl describe pod ft-llama-0-0 -n {NS}").output
    assert "Status:           Pending" in described
    assert UNAUTHORIZED in described and "401 Unauthorized" in described
    assert "Error: ImagePullBackOff" in described and "Back-off pulling image" in described
    assert done(pull) == {
        "credentials-stored": False,
        "credentials-used": False,
        "training-runs": False,
    }


def test_the_secret_holds_the_docker_config_kubectl_writes(pull: LabSession) -> None:
    assert pull.run(SECRET).output == "secret/ngc-acme created"
    out = pull.run(f"kubectl get secret ngc-acme -n {NS} -o jsonpath='{{.type}}'").output
    assert out == "kubernetes.io/dockerconfigjson"
    assert done(pull)["credentials-stored"] is True


def test_a_docker_registry_secret_needs_a_user_and_password(pull: LabSession) -> None:
    result = pull.run(f"kubectl create secret docker-registry ngc -n {NS} --docker-server=nvcr.io")
    assert result.output == (
        "error: either --from-file or the combination of --docker-username, --docker-password "
        "and --docker-server is required"
    )
    assert "secret/ngc created" not in result.output


def test_patching_the_service_account_does_not_change_the_waiting_pod(pull: LabSession) -> None:
    run_all(pull, [SECRET, PATCH_SA])
    wait(pull, 4)
    # The ServiceAccount's secrets are copied into pods when they are created, not after.
    assert "ImagePull" in pod_state(pull) or "ErrImagePull" in pod_state(pull)
    assert done(pull) == {
        "credentials-stored": True,
        "credentials-used": True,
        "training-runs": False,
    }
    pull.run(RECREATE)
    wait(pull, 4)
    assert "1/1     Running" in pod_state(pull)
    events = pull.run(f"kubectl describe pod ft-llama-0-0 -n {NS}").output
    assert 'Successfully pulled image "nvcr.io/acme-research/nlp/llama-finetune:2.3"' in events
    assert pull.is_complete()


def test_in_another_order_the_account_first_then_the_secret(pull: LabSession) -> None:
    run_all(pull, [PATCH_SA, RECREATE])
    wait(pull, 3)
    described = pull.run(f"kubectl describe pod ft-llama-0-0 -n {NS}").output
    assert (
        "Unable to retrieve some image pull secrets (ngc-acme); attempting to pull the image "
        "may not succeed." in described
    )
    assert "401 Unauthorized" in described
    pull.run(SECRET)
    wait(pull, 4)  # the kubelet retries the pull after its back-off with the secret now there
    assert pull.is_complete()


def test_a_secret_for_docker_hub_does_not_log_in_to_nvcr(pull: LabSession) -> None:
    # kubectl's --docker-server defaults to Docker Hub.
    run_all(
        pull,
        [
            f"kubectl create secret docker-registry ngc-acme -n {NS} "
            f"--docker-username='$oauthtoken' --docker-password={KEY}",
            PATCH_SA,
            RECREATE,
        ],
    )
    wait(pull, 4)
    assert "Running" not in pod_state(pull)
    assert "401 Unauthorized" in pull.run(f"kubectl describe pod ft-llama-0-0 -n {NS}").output
    assert done(pull)["credentials-stored"] is False


def test_a_personal_user_name_is_refused_by_nvcr(pull: LabSession) -> None:
    run_all(
        pull,
        [
            f"kubectl create secret docker-registry ngc-acme -n {NS} --docker-server=nvcr.io "
            f"--docker-username=priya --docker-password={KEY}",
            PATCH_SA,
            RECREATE,
        ],
    )
    wait(pull, 4)
    assert "Running" not in pod_state(pull)
    assert done(pull)["training-runs"] is False


def test_a_secret_in_the_default_namespace_is_not_seen_by_the_project(pull: LabSession) -> None:
    run_all(
        pull,
        [
            "kubectl create secret docker-registry ngc-acme --docker-server=nvcr.io "
            f"--docker-username='$oauthtoken' --docker-password={KEY}",
            PATCH_SA,
            RECREATE,
        ],
    )
    wait(pull, 4)
    assert "Running" not in pod_state(pull)
    assert done(pull)["credentials-stored"] is False


def test_resubmitting_the_training_after_the_fix_also_works(pull: LabSession) -> None:
    run_all(
        pull,
        [
            SECRET,
            PATCH_SA,
            "runai training delete ft-llama -p team-nlp",
        ],
    )
    wait(pull, 2)
    pull.run(
        "runai training submit ft-llama -p team-nlp "
        "-i nvcr.io/acme-research/nlp/llama-finetune:2.3 -g 4"
    )
    wait(pull, 4)
    assert pull.is_complete(), done(pull)


def test_an_existing_secret_is_refused_with_kubectls_words(pull: LabSession) -> None:
    pull.run(SECRET)
    out = pull.run(SECRET).output
    # kubectl's secret generators wrap the server's refusal in their own words.
    assert out == 'error: failed to create secret secrets "ngc-acme" already exists'
    assert done(pull)["credentials-stored"] is True  # the first secret is kept
