"""A second reader's corpus: the kubectl lines of the Kubernetes docs' kubectl Quick Reference.

The lines are those of https://kubernetes.io/docs/reference/kubectl/quick-reference/ (the
kubernetes/website repository, CC BY 4.0), in its order, with its example names (`my-pod`,
`my-dep`, `foo`) put in the place of objects of the `mig-single` ticket's world, so they reach
something; names the page means to be missing (`baz`, `unwanted`) are kept. A line that needs a
shell (a pipe, `$(...)`, a here-document) keeps its kubectl part; a file the page applies is
written first. Nobody on this project chose these commands: they are what a learner coming
from the docs types.

`LINES` holds (line, note): the note says why a line is not the page's own word for word.
`REFUSED` are the page's lines the lab refuses in one line by design (nothing runs inside its
pods; it serves no autoscaling API): the test checks they say so.
"""

from __future__ import annotations

TICKET = "mig-single"

# Objects of the ticket's world (seed 0) the page's placeholders stand for.
NAMES = {
    "my-pod": "train-llm-7-xk2bl",  # default namespace; its container is `train`
    "my-container": "train",
    "my-dep": "coredns",  # kube-system
    "my-node": "gpu-node1",
    "myconfig": "kube-root-ca.crt",  # holds the key `ca.crt`, as the page's example does
}

# The page's files, written before the lines run (`kubectl apply -f - <<EOF` made files).
FILES = {
    "my-manifest.yaml": (
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: busybox-sleep\nspec:\n  containers:\n"
        "  - name: busybox\n    image: busybox:1.28\n    args:\n    - sleep\n"
        '    - "1000000"\n---\napiVersion: v1\nkind: Pod\nmetadata:\n'
        "  name: busybox-sleep-less\nspec:\n  containers:\n  - name: busybox\n"
        '    image: busybox:1.28\n    args:\n    - sleep\n    - "1000"\n'
    ),
    # `password: $(echo -n "s33msi4" | base64 -w0)` and the username, as the shell makes them.
    "secret.yaml": (
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: mysecret\ntype: Opaque\ndata:\n"
        "  password: czMzbXNpNA==\n  username: amFuZQ==\n"
    ),
}

LINES: list[tuple[str, str]] = [
    # Creating objects
    ("kubectl apply -f ./my-manifest.yaml", ""),
    ("kubectl create deployment nginx --image=nginx", ""),
    ('kubectl create job hello --image=busybox:1.28 -- echo "Hello World"', ""),
    (
        'kubectl create cronjob hello --image=busybox:1.28 --schedule="*/1 * * * *" '
        '-- echo "Hello World"',
        "",
    ),
    ("kubectl explain pods", ""),
    ("kubectl apply -f secret.yaml", "the page's here-document, as a file"),
    # Viewing and finding resources
    ("kubectl get services", ""),
    ("kubectl get pods --all-namespaces", ""),
    ("kubectl get pods -o wide", ""),
    ("kubectl get deployment my-dep -n kube-system", "my-dep lives in kube-system"),
    ("kubectl get pods", ""),
    ("kubectl get pod my-pod -o yaml", ""),
    ("kubectl describe nodes my-node", ""),
    ("kubectl describe pods my-pod", ""),
    ("kubectl get services --sort-by=.metadata.name", ""),
    ("kubectl get pods --sort-by='.status.containerStatuses[0].restartCount'", ""),
    ("kubectl get pv --sort-by=.spec.capacity.storage", ""),
    (
        "kubectl get pods --selector=app=cassandra -o "
        "jsonpath='{.items[*].metadata.labels.version}'",
        "",
    ),
    ("kubectl get configmap myconfig -o jsonpath='{.data.ca\\.crt}'", ""),
    ("kubectl get secret mysecret --template='{{index .data \"password\"}}'", "a key it has"),
    ("kubectl get node --selector='!node-role.kubernetes.io/control-plane'", ""),
    ("kubectl get pods --field-selector=status.phase=Running", ""),
    (
        'kubectl get nodes -o jsonpath=\'{.items[*].status.addresses[?(@.type=="ExternalIP")]'
        ".address}'",
        "",
    ),
    ("kubectl get pods --show-labels", ""),
    (
        'kubectl get nodes -o jsonpath="{range .items[*]}{@.metadata.name}:{range '
        '@.status.conditions[*]}{@.type}={@.status};{end}{end}"',
        "$JSONPATH written out; the page then greps it",
    ),
    (
        "kubectl get node -o custom-columns='NODE_NAME:.metadata.name,STATUS:.status.conditions"
        '[?(@.type=="Ready")].status\'',
        "",
    ),
    (
        'kubectl get secret mysecret -o go-template=\'{{range $k,$v := .data}}{{"### "}}{{$k}}'
        '{{"\\n"}}{{$v|base64decode}}{{"\\n\\n"}}{{end}}\'',
        "",
    ),
    ("kubectl get pods -o json", "the page pipes it to jq"),
    (
        "kubectl get pods --all-namespaces -o jsonpath='{range .items[*].status."
        'initContainerStatuses[*]}{.containerID}{"\\n"}{end}\'',
        "the page cuts it",
    ),
    ("kubectl get events --sort-by=.metadata.creationTimestamp", ""),
    ("kubectl events --types=Warning", ""),
    ("kubectl diff -f ./my-manifest.yaml", ""),
    ("kubectl get nodes -o json", "the page pipes it to jq"),
    ("kubectl get po --output=jsonpath={.items..metadata.name}", "the page loops over it"),
    ("kubectl get deployment my-dep -n kube-system --subresource=status", ""),
    # Updating resources
    ("kubectl set image deployment/my-dep -n kube-system coredns=image:v2", "its container"),
    ("kubectl rollout history deployment/my-dep -n kube-system", ""),
    ("kubectl rollout undo deployment/my-dep -n kube-system", ""),
    ("kubectl rollout undo deployment/my-dep -n kube-system --to-revision=2", ""),
    ("kubectl rollout restart deployment/my-dep -n kube-system", ""),
    ("kubectl expose deployment my-dep -n kube-system --port=80 --target-port=8000", "not rc"),
    ("kubectl label pods my-pod new-label=awesome", ""),
    ("kubectl label pods my-pod new-label-", ""),
    ("kubectl label pods my-pod new-label=new-value --overwrite", ""),
    ("kubectl annotate pods my-pod icon-url=http://goo.gl/XXBTWq", ""),
    ("kubectl annotate pods my-pod icon-url-", ""),
    # Patching resources
    ('kubectl patch node my-node -p \'{"spec":{"unschedulable":true}}\'', ""),
    (
        'kubectl patch pod my-pod -p \'{"spec":{"containers":[{"name":"my-container",'
        '"image":"new image"}]}}\'',
        "",
    ),
    (
        'kubectl patch pod my-pod --type=\'json\' -p=\'[{"op": "replace", "path": '
        '"/spec/containers/0/image", "value":"new image"}]\'',
        "",
    ),
    (
        'kubectl patch deployment my-dep -n kube-system --type json -p=\'[{"op": "remove", '
        '"path": "/spec/template/spec/containers/0/livenessProbe"}]\'',
        "",
    ),
    (
        'kubectl patch sa default --type=\'json\' -p=\'[{"op": "add", "path": "/secrets/1", '
        '"value": {"name": "whatever" } }]\'',
        "",
    ),
    (
        "kubectl patch deployment my-dep -n kube-system --subresource='scale' --type='merge' "
        '-p \'{"spec":{"replicas":2}}\'',
        "",
    ),
    # Scaling resources
    ("kubectl scale --replicas=3 deployment/my-dep -n kube-system", "not rs/foo"),
    ("kubectl scale --current-replicas=2 --replicas=3 deployment/my-dep -n kube-system", ""),
    ("kubectl scale --current-replicas=3 --replicas=2 deployment/my-dep -n kube-system", ""),
    ("kubectl scale --replicas=5 rc/foo rc/bar rc/baz", ""),
    # Interacting with running pods
    ("kubectl logs my-pod", ""),
    ("kubectl logs -l job-name=train-llm-7", "a label it has"),
    ("kubectl logs my-pod --previous", ""),
    ("kubectl logs my-pod -c my-container", ""),
    ("kubectl run nginx --image=nginx -n kube-public", "a namespace that exists"),
    ("kubectl run nginx --image=nginx --dry-run=client -o yaml", "the page redirects it"),
    ("kubectl logs deploy/my-dep -n kube-system", ""),
    ("kubectl top pod", ""),
    ("kubectl top node", ""),
    # Nodes and cluster
    ("kubectl cordon my-node", ""),
    ("kubectl uncordon my-node", ""),
    ("kubectl cluster-info", ""),
    (
        "kubectl get nodes -o='custom-columns=NodeName:.metadata.name,TaintKey:.spec.taints[*]"
        ".key,TaintValue:.spec.taints[*].value,TaintEffect:.spec.taints[*].effect'",
        "",
    ),
    ("kubectl taint nodes my-node dedicated=special-user:NoSchedule", ""),
    # Resource types
    ("kubectl api-resources", ""),
    ("kubectl api-resources --namespaced=true", ""),
    ("kubectl api-resources --namespaced=false", ""),
    ("kubectl api-resources -o name", ""),
    ("kubectl api-resources -o wide", ""),
    ("kubectl api-resources --verbs=list,get", ""),
    ("kubectl api-resources --api-group=extensions", ""),
    # Formatting output
    ("kubectl get pods -A -o=custom-columns='DATA:spec.containers[*].image'", ""),
    (
        'kubectl get pods --namespace default --output=custom-columns="NAME:.metadata.name,'
        'IMAGE:.spec.containers[*].image"',
        "",
    ),
    (
        "kubectl get pods -A -o=custom-columns='DATA:spec.containers[?(@.image!=\"registry.k8s.io"
        "/coredns:1.6.2\")].image'",
        "",
    ),
    (
        "kubectl get pods -A -o=custom-columns='DATA:metadata.*'",
        "compared field by field: Go ranges over a map in random order",
    ),
    # Deleting resources (last: they change what the lines above read)
    ("kubectl delete -f ./my-manifest.yaml", ""),
    ("kubectl delete pod unwanted --now", ""),
    ("kubectl delete pod,service baz foo", ""),
    ("kubectl delete pods,services -l name=myLabel", ""),
    ("kubectl -n kube-public delete pod,svc --all", "the namespace run made its pod in"),
]

# Lines whose rows the real kubectl prints in a random order of fields (a Go map's range).
UNORDERED = ("DATA:metadata.*",)

# The page's lines the lab refuses by design, each in one line naming why.
REFUSED = [
    "kubectl autoscale deployment my-dep -n kube-system --min=2 --max=10",
    "kubectl run -i --tty busybox --image=busybox:1.28 -- sh",
    "kubectl attach my-pod -i",
    "kubectl port-forward my-pod 5000:6000",
    "kubectl debug my-pod -it --image=busybox:1.28",
    "kubectl debug node/my-node -it --image=busybox:1.28",
    "kubectl cp /tmp/foo my-pod:/tmp/bar",
    "kubectl port-forward svc/kube-dns -n kube-system 5000",
]


def placed(line: str) -> str:
    """The line with the page's example names put in the place of the world's."""
    for example, name in NAMES.items():
        line = line.replace(f" {example}", f" {name}").replace(f"/{example} ", f"/{name} ")
        line = line.replace(f'"{example}"', f'"{name}"')
    return line
