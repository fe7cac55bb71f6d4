# Security Verifiers E2 — Kubernetes policy pack (Rego v1).
#
# Input:  {"objects": [<Kubernetes object>, ...]}  — the objects of one manifest, in order
#         (configs.parse_k8s: one per document; a `kind: List` contributes its items), as
#         k8s_effective resolves them (claims bound to hostPath volumes, enumerated RBAC
#         wildcards, aggregated and copied cluster-admin roles, vacuous limits).
# Output: data.sv.kubernetes.violations — a set of
#         {"rule": <canonical id>, "resource": "<Kind>/<metadata.name>", "msg": <text>}.
# Rule semantics are documented in canonical.py (one rule per canonical k8s/* id).
package sv.kubernetes

import rego.v1

template_kinds := {"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "ReplicationController", "Job"}

dangerous_caps := {
	"ALL", "SYS_ADMIN", "NET_ADMIN", "NET_RAW", "SYS_PTRACE", "SYS_MODULE", "SYS_RAWIO",
	"SYS_BOOT", "SYS_TIME", "DAC_READ_SEARCH", "BPF", "MAC_ADMIN", "MAC_OVERRIDE",
}

# ---------------------------------------------------------------- helpers

obj(x) := x if {
	is_object(x)
} else := {}

arr(x) := x if {
	is_array(x)
} else := []

# field(o, k): o[k] when o is an object holding k, else null.
field(o, k) := object.get(obj(o), k, null)

resource(o) := sprintf("%s/%s", [o.kind, o.metadata.name])

pod_spec(o) := o.spec if o.kind == "Pod"

pod_spec(o) := o.spec.template.spec if o.kind in template_kinds

pod_spec(o) := o.spec.jobTemplate.spec.template.spec if o.kind == "CronJob"

# Pods: {"resource", "spec"} for every workload object with an object pod spec.
pods contains {"resource": resource(o), "spec": spec} if {
	some o in arr(input.objects)
	spec := pod_spec(o)
	is_object(spec)
}

# Every container of a pod spec: containers, initContainers and ephemeralContainers.
containers contains {"resource": p.resource, "spec": p.spec, "c": c, "field": f} if {
	some p in pods
	some f in ["containers", "initContainers", "ephemeralContainers"]
	some c in arr(p.spec[f])
	is_object(c)
}

csc(x) := obj(field(x.c, "securityContext"))

limits(x) := obj(field(field(x.c, "resources"), "limits"))

cname(x) := sprintf("%s '%v'", [trim_suffix(x.field, "s"), object.get(x.c, "name", "?")])

# Effective pod/container security setting: the container's value overrides the pod's.
effective(x, key) := csc(x)[key]

effective(x, key) := obj(field(x.spec, "securityContext"))[key] if not key in object.keys(csc(x))

positive_uid(x) if {
	uid := effective(x, "runAsUser")
	is_number(uid)
	uid > 0
}

unset_quantity(v) if v == null

unset_quantity(v) if v == ""

unset_quantity(v) if v == 0

unset_quantity(v) if v == "0"

missing_limit(x, res) if not res in object.keys(limits(x))

missing_limit(x, res) if unset_quantity(limits(x)[res])

# A limit above any node's size (k8s_effective: x-sv-vacuous-limits) limits nothing.
vacuous_limit(x, res) if res in arr(field(x.c, "x-sv-vacuous-limits"))

# The tag of an image reference ("" when none); a registry port is not a tag.
image_tag(image) := tag if {
	segments := split(image, "/")
	last := segments[count(segments) - 1]
	parts := split(last, ":")
	tag := parts[count(parts) - 1]
	count(parts) > 1
} else := ""

# A tag pins an image when it names a release (major.minor...), a date or build stamp of six
# or more digits, or a commit hash; "latest", no tag, a bare major ("7", "v2") or a channel
# name ("stable", "alpine", "lts") float.
pinned_tag(tag) if regex.match(`^[vV]?[0-9]+\.[0-9]+`, tag)

pinned_tag(tag) if regex.match(`^[0-9]{6,}`, tag)

pinned_tag(tag) if regex.match(`^(sha-|g)?[0-9a-f]{7,40}$`, tag)

bad_tag(image) if {
	not contains(image, "@")
	not pinned_tag(image_tag(image))
}

norm_cap(c) := trim_prefix(upper(c), "CAP_")

# Pod Security Standards (baseline, Kubernetes 1.32) sysctls a pod may set.
safe_sysctls := {
	"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
	"net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
	"net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
	"net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem",
}

# The metadata annotations of a workload's pods (the object's own for a Pod, else its template's).
pod_annotations(o) := obj(field(o.metadata, "annotations")) if o.kind == "Pod"

pod_annotations(o) := obj(field(field(o.spec.template, "metadata"), "annotations")) if o.kind in template_kinds

pod_annotations(o) := obj(field(field(o.spec.jobTemplate.spec.template, "metadata"), "annotations")) if o.kind == "CronJob"

annotated contains {"resource": resource(o), "notes": pod_annotations(o)} if {
	some o in arr(input.objects)
	is_object(pod_spec(o))
}

psc(p) := obj(field(p.spec, "securityContext"))

# ---------------------------------------------------------------- rules

violations contains v if {
	some x in containers
	csc(x).privileged == true
	v := {"rule": "k8s/privileged-container", "resource": x.resource, "msg": sprintf("%s is privileged", [cname(x)])}
}

violations contains v if {
	some p in pods
	p.spec.hostNetwork == true
	v := {"rule": "k8s/host-network", "resource": p.resource, "msg": "hostNetwork: true"}
}

violations contains v if {
	some p in pods
	p.spec.hostPID == true
	v := {"rule": "k8s/host-pid", "resource": p.resource, "msg": "hostPID: true"}
}

violations contains v if {
	some p in pods
	p.spec.hostIPC == true
	v := {"rule": "k8s/host-ipc", "resource": p.resource, "msg": "hostIPC: true"}
}

violations contains v if {
	some x in containers
	not effective(x, "runAsNonRoot") == true
	not positive_uid(x)
	v := {"rule": "k8s/run-as-root", "resource": x.resource, "msg": sprintf("%s may run as root (no runAsNonRoot: true, no runAsUser > 0)", [cname(x)])}
}

violations contains v if {
	some x in containers
	not csc(x).allowPrivilegeEscalation == false
	v := {"rule": "k8s/privilege-escalation", "resource": x.resource, "msg": sprintf("%s does not set allowPrivilegeEscalation: false", [cname(x)])}
}

# Ephemeral containers are skipped: the API forbids resources on them.
violations contains v if {
	some x in containers
	x.field != "ephemeralContainers"
	some res in ["cpu", "memory"]
	missing_limit(x, res)
	v := {"rule": "k8s/missing-resource-limits", "resource": x.resource, "msg": sprintf("%s has no %s limit", [cname(x), res])}
}

violations contains v if {
	some x in containers
	x.field != "ephemeralContainers"
	some res in ["cpu", "memory"]
	vacuous_limit(x, res)
	v := {"rule": "k8s/missing-resource-limits", "resource": x.resource, "msg": sprintf("%s has a %s limit beyond any node's size (no limit)", [cname(x), res])}
}

violations contains v if {
	some x in containers
	is_string(x.c.image)
	bad_tag(x.c.image)
	v := {"rule": "k8s/image-latest-tag", "resource": x.resource, "msg": sprintf("%s image '%s' is not pinned (latest, no tag or a floating tag)", [cname(x), x.c.image])}
}

violations contains v if {
	some p in pods
	some vol in arr(p.spec.volumes)
	is_object(vol)
	"hostPath" in object.keys(vol)
	v := {"rule": "k8s/hostpath-volume", "resource": p.resource, "msg": sprintf("volume '%v' mounts hostPath %v", [object.get(vol, "name", "?"), object.get(obj(vol.hostPath), "path", "?")])}
}

violations contains v if {
	some x in containers
	some cap in arr(field(field(csc(x), "capabilities"), "add"))
	is_string(cap)
	norm_cap(cap) in dangerous_caps
	v := {"rule": "k8s/dangerous-capabilities", "resource": x.resource, "msg": sprintf("%s adds capability %s", [cname(x), cap])}
}

violations contains v if {
	some x in containers
	not csc(x).readOnlyRootFilesystem == true
	v := {"rule": "k8s/writable-root-filesystem", "resource": x.resource, "msg": sprintf("%s does not set readOnlyRootFilesystem: true", [cname(x)])}
}

violations contains v if {
	some o in arr(input.objects)
	o.kind in {"Role", "ClusterRole"}
	some rule in arr(o.rules)
	some f in ["apiGroups", "resources", "verbs"]
	some s in arr(field(rule, f))
	is_string(s)
	contains(s, "*")
	v := {"rule": "k8s/rbac-wildcard", "resource": resource(o), "msg": sprintf("rule grants '%s' in %s", [s, f])}
}

violations contains v if {
	some o in arr(input.objects)
	o.kind in {"ClusterRoleBinding", "RoleBinding"}
	o.roleRef.kind == "ClusterRole"
	o.roleRef.name == "cluster-admin"
	v := {"rule": "k8s/cluster-admin-binding", "resource": resource(o), "msg": "binds the cluster-admin ClusterRole"}
}

# ---------------------------------------------------------------- Pod Security Standards (baseline)

violations contains v if {
	some x in containers
	some port in arr(field(x.c, "ports"))
	hp := field(port, "hostPort")
	hp != null
	hp != 0
	v := {"rule": "k8s/host-port", "resource": x.resource, "msg": sprintf("%s binds hostPort %v", [cname(x), hp])}
}

violations contains v if {
	some p in pods
	field(field(psc(p), "seccompProfile"), "type") == "Unconfined"
	v := {"rule": "k8s/seccomp-unconfined", "resource": p.resource, "msg": "pod seccompProfile is Unconfined"}
}

violations contains v if {
	some x in containers
	field(field(csc(x), "seccompProfile"), "type") == "Unconfined"
	v := {"rule": "k8s/seccomp-unconfined", "resource": x.resource, "msg": sprintf("%s seccompProfile is Unconfined", [cname(x)])}
}

violations contains v if {
	some a in annotated
	some key, value in a.notes
	is_string(key)
	key == "seccomp.security.alpha.kubernetes.io/pod"
	lower(sprintf("%v", [value])) == "unconfined"
	v := {"rule": "k8s/seccomp-unconfined", "resource": a.resource, "msg": "seccomp annotation is unconfined"}
}

violations contains v if {
	some a in annotated
	some key, value in a.notes
	is_string(key)
	startswith(key, "container.seccomp.security.alpha.kubernetes.io/")
	lower(sprintf("%v", [value])) == "unconfined"
	v := {"rule": "k8s/seccomp-unconfined", "resource": a.resource, "msg": sprintf("annotation %s is unconfined", [key])}
}

violations contains v if {
	some p in pods
	field(field(psc(p), "appArmorProfile"), "type") == "Unconfined"
	v := {"rule": "k8s/apparmor-unconfined", "resource": p.resource, "msg": "pod appArmorProfile is Unconfined"}
}

violations contains v if {
	some x in containers
	field(field(csc(x), "appArmorProfile"), "type") == "Unconfined"
	v := {"rule": "k8s/apparmor-unconfined", "resource": x.resource, "msg": sprintf("%s appArmorProfile is Unconfined", [cname(x)])}
}

violations contains v if {
	some a in annotated
	some key, value in a.notes
	is_string(key)
	startswith(key, "container.apparmor.security.beta.kubernetes.io/")
	lower(sprintf("%v", [value])) == "unconfined"
	v := {"rule": "k8s/apparmor-unconfined", "resource": a.resource, "msg": sprintf("annotation %s is unconfined", [key])}
}

violations contains v if {
	some x in containers
	pm := field(csc(x), "procMount")
	pm != null
	pm != "Default"
	v := {"rule": "k8s/unmasked-proc-mount", "resource": x.resource, "msg": sprintf("%s procMount is %v", [cname(x), pm])}
}

violations contains v if {
	some p in pods
	some s in arr(field(psc(p), "sysctls"))
	name := field(s, "name")
	is_string(name)
	not name in safe_sysctls
	v := {"rule": "k8s/unsafe-sysctls", "resource": p.resource, "msg": sprintf("pod sets sysctl %v", [name])}
}
