"""kubectl create service clusterip|nodeport|loadbalancer|externalname (upstream's
create_service.go): the Service each builds from --tcp (`port[:targetPort]`, comma-separated
too), --clusterip (`None` for a headless service), --node-port and --external-name, with
kubectl's checks and their one-line errors before anything reaches the server.
"""

from __future__ import annotations

import re

from simulators.cluster.api import Obj
from simulators.lab.flags import Parsed
from simulators.lab.kubectl.common import KubectlError
from simulators.lab.kubectl.create_names import OPTIONS_LINE, int_flag, one_name, string_slice

SERVICE_TYPES = {
    "clusterip": "ClusterIP",
    "nodeport": "NodePort",
    "loadbalancer": "LoadBalancer",
    "externalname": "ExternalName",
}
SERVICE_HELP = f"""Create a service using a specified subcommand.

Aliases:
service, svc

Available Commands:
  clusterip      Create a ClusterIP service
  externalname   Create an ExternalName service
  loadbalancer   Create a LoadBalancer service
  nodeport       Create a NodePort service

Usage:
  kubectl create service [flags] [options]

Use "kubectl create service <command> --help" for more information about a given command.
{OPTIONS_LINE}"""
_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN = re.compile(rf"{_DNS_LABEL}(\.{_DNS_LABEL})*")


def _port(text: str) -> int:
    """utilsnet.ParsePort(text, allowZero=true): strconv.ParseUint's base 10, 16 bits."""
    if not re.fullmatch(r"[0-9]+", text):
        raise KubectlError(f'error: strconv.ParseUint: parsing "{text}": invalid syntax')
    if int(text) > 65535:
        raise KubectlError(f'error: strconv.ParseUint: parsing "{text}": value out of range')
    return int(text)


def port_name_errors(name: str) -> list[str]:
    """validation.IsValidPortName."""
    errors = []
    if len(name) > 15:
        errors.append("must be no more than 15 characters")
    if not re.fullmatch(r"[-a-z0-9]+", name):
        errors.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search(r"[a-z]", name):
        errors.append("must contain at least one letter (a-z)")
    if "--" in name:
        errors.append("must not contain consecutive hyphens")
    if name[:1] == "-" or name[-1:] == "-":
        errors.append("must not begin or end with a hyphen")
    return errors


def _target(text: str) -> int | str:
    """The target port: a number (strconv.Atoi) between 1 and 65535, else a port name."""
    if re.fullmatch(r"[+-]?[0-9]+", text) and -(2**63) <= int(text) < 2**63:
        if not 1 <= int(text) <= 65535:
            raise KubectlError("error: must be between 1 and 65535, inclusive")
        return int(text)
    errors = port_name_errors(text)
    if errors:
        raise KubectlError(f"error: {','.join(errors)}")
    return text


def _ports(specs: list[str], node_port: int) -> list[Obj]:
    ports: list[Obj] = []
    for spec in specs:
        parts = spec.split(":")
        port = _port(parts[0])
        target: int | str = port if len(parts) == 1 else _target(parts[1])
        entry: Obj = {"name": spec.replace(":", "-"), "port": port, "protocol": "TCP"}
        entry["targetPort"] = target
        if node_port:
            entry["nodePort"] = node_port
        ports.append(entry)
    return ports


def service(kind: str, parsed: Parsed, rest: list[str]) -> tuple[str, Obj]:
    """`create service KIND NAME ...`: the Service of that type."""
    if kind not in SERVICE_TYPES:
        if not kind:
            raise KubectlError(SERVICE_HELP)
        words = " ".join([kind, *rest])
        raise KubectlError(
            f'error: unknown command "{words}"\n'
            f"See 'kubectl create service -h' for help and examples"
        )
    command = f"create service {kind}"
    service_type = SERVICE_TYPES[kind]
    if kind == "externalname" and not parsed.has("external-name"):
        raise KubectlError('error: required flag(s) "external-name" not set')
    node_port = int_flag(command, parsed, "node-port", 0, bits=64)
    name = one_name(command, rest)
    cluster_ip = parsed.value("clusterip") or ""
    external = parsed.value("external-name") or ""
    specs = string_slice(parsed, "tcp")
    if cluster_ip == "None" and service_type != "ClusterIP":
        raise KubectlError("error: ClusterIP=None can only be used with ClusterIP service type")
    if cluster_ip != "None" and not specs and service_type != "ExternalName":
        raise KubectlError("error: at least one tcp port specifier must be provided")
    if service_type == "ExternalName" and (
        len(external) > 253 or not _DNS_SUBDOMAIN.fullmatch(external)
    ):
        raise KubectlError(f"error: invalid service external name {external}")
    spec: Obj = {}
    ports = _ports(specs, node_port)
    if ports:
        spec["ports"] = ports
    spec["selector"] = {"app": name}
    if cluster_ip:
        spec["clusterIP"] = cluster_ip
    spec["type"] = service_type
    if external:
        spec["externalName"] = external
    return "services", {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"labels": {"app": name}, "name": name},
        "spec": spec,
        "status": {"loadBalancer": {}},
    }
