# Security Verifiers E2 — Terraform (AWS) policy pack (Rego v1).
#
# Input: configs.normalise_terraform(hcl2 dict):
#   {"resources": [{"mode": "managed"|"data", "type", "name", "address", "line",
#                   "config": {...}, "refs": ["<type>.<name>", ...]}]}
#   config: attribute values unwrapped, nested blocks as lists of objects, literal var/local
#   defaults substituted, policy JSON/jsonencode decoded; unresolved expressions are strings
#   starting with "${" and never produce a violation on their own. Resolved by tf_effective
#   (attached managed policies, prefix lists, selectors that record nothing) and normalised
#   by tf_values / tf_network before evaluation.
# Output: data.sv.terraform.violations — a set of
#   {"rule": <canonical id>, "resource": "<type>.<name>" | "data.<type>.<name>", "msg": <text>}.
# Rule semantics are documented in canonical.py (one rule per canonical tf/* id).
package sv.terraform

import rego.v1

public_acls := {"public-read", "public-read-write", "authenticated-read", "website"}

public_grantees := {
	"http://acs.amazonaws.com/groups/global/AllUsers",
	"http://acs.amazonaws.com/groups/global/AuthenticatedUsers",
}

sse_algorithms := {"AES256", "aws:kms", "aws:kms:dsse"}

admin_ports := [22, 3389]

iam_policy_types := {
	"aws_iam_policy", "aws_iam_role_policy", "aws_iam_user_policy", "aws_iam_group_policy",
	"aws_ssoadmin_permission_set_inline_policy",
}

# ---------------------------------------------------------------- helpers

obj(x) := x if {
	is_object(x)
} else := {}

arr(x) := x if {
	is_array(x)
} else := [x] if {
	x != null
} else := []

cfg(r, k) := object.get(r.config, k, null)

managed(t) := [r | some r in input.resources; r.mode == "managed"; r.type == t]

unknown(v) if {
	is_string(v)
	contains(v, "${")
}

is_true(v) if v == true

is_true(v) if v == "true"

is_false(v) if v == false

is_false(v) if v == "false"

# "must be true": unset (null) or false; an unresolved expression is not a violation.
not_true(v) if v == null

not_true(v) if is_false(v)

as_number(v) := v if is_number(v)

as_number(v) := to_number(v) if {
	is_string(v)
	regex.match(`^-?[0-9]+$`, v)
}

# Addresses of the resources of type t that `r` points at by reference or by literal bucket name.
targets(r, t) := {b.address | some b in managed(t); refers(r, b)}

refers(r, b) if b.address in r.refs

refers(r, b) if {
	name := cfg(b, "bucket")
	is_string(name)
	not unknown(name)
	cfg(r, "bucket") == name
}

# ---------------------------------------------------------------- S3

s3_acl_public(r) if cfg(r, "acl") in public_acls

s3_acl_public(r) if {
	some acp in arr(cfg(r, "access_control_policy"))
	some g in arr(obj(acp).grant)
	some grantee in arr(obj(g).grantee)
	obj(grantee).uri in public_grantees
}

violations contains v if {
	some b in managed("aws_s3_bucket")
	cfg(b, "acl") in public_acls
	v := {"rule": "tf/s3-public-access", "resource": b.address, "msg": sprintf("bucket ACL is %s", [cfg(b, "acl")])}
}

violations contains v if {
	some a in managed("aws_s3_bucket_acl")
	s3_acl_public(a)
	ts := targets(a, "aws_s3_bucket")
	some res in ts
	v := {"rule": "tf/s3-public-access", "resource": res, "msg": sprintf("%s makes the bucket public", [a.address])}
}

violations contains v if {
	some a in managed("aws_s3_bucket_acl")
	s3_acl_public(a)
	count(targets(a, "aws_s3_bucket")) == 0
	v := {"rule": "tf/s3-public-access", "resource": a.address, "msg": "public bucket ACL"}
}

violations contains v if {
	some p in managed("aws_s3_bucket_public_access_block")
	some setting in ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"]
	not_true(cfg(p, setting))
	v := {"rule": "tf/s3-public-access", "resource": p.address, "msg": sprintf("%s is not true", [setting])}
}

sse_ok(body) if {
	some sse in arr(object.get(obj(body), "server_side_encryption_configuration", null))
	some rule in arr(obj(sse).rule)
	some d in arr(obj(rule).apply_server_side_encryption_by_default)
	obj(d).sse_algorithm in sse_algorithms
}

# An unresolved algorithm expression counts as configured (cannot be judged).
sse_ok(body) if {
	some sse in arr(object.get(obj(body), "server_side_encryption_configuration", null))
	some rule in arr(obj(sse).rule)
	some d in arr(obj(rule).apply_server_side_encryption_by_default)
	unknown(obj(d).sse_algorithm)
}

bucket_encrypted(b) if sse_ok(b.config)

bucket_encrypted(b) if {
	some e in managed("aws_s3_bucket_server_side_encryption_configuration")
	b.address in targets(e, "aws_s3_bucket")
	sse_ok({"server_side_encryption_configuration": [e.config]})
}

violations contains v if {
	some b in managed("aws_s3_bucket")
	not bucket_encrypted(b)
	v := {"rule": "tf/s3-unencrypted", "resource": b.address, "msg": "no default server-side encryption (AES256/aws:kms)"}
}

# ---------------------------------------------------------------- security groups

open_cidr(rule) if "0.0.0.0/0" in arr(object.get(rule, "cidr_blocks", null))

open_cidr(rule) if "::/0" in arr(object.get(rule, "ipv6_cidr_blocks", null))

open_cidr(rule) if object.get(rule, "cidr_ipv4", null) == "0.0.0.0/0"

open_cidr(rule) if object.get(rule, "cidr_ipv6", null) == "::/0"

all_protocols(rule) if {
	some key in ["protocol", "ip_protocol"]
	p := object.get(rule, key, null)
	lower(sprintf("%v", [p])) in {"-1", "all"}
}

covers(rule, port) if all_protocols(rule)

covers(rule, port) if {
	not all_protocols(rule)
	from := as_number(object.get(rule, "from_port", null))
	to := as_number(object.get(rule, "to_port", null))
	from <= port
	port <= to
}

# Admin ports an ingress rule opens to the Internet.
open_admin(rule) := {port | some port in admin_ports; covers(rule, port)} if open_cidr(rule)

violations contains v if {
	some sg in managed("aws_security_group")
	some rule in arr(cfg(sg, "ingress"))
	some port in open_admin(obj(rule))
	v := {"rule": "tf/sg-open-admin-port", "resource": sg.address, "msg": sprintf("ingress open to the Internet on port %d", [port])}
}

violations contains v if {
	some r in managed("aws_security_group_rule")
	cfg(r, "type") == "ingress"
	some port in open_admin(r.config)
	v := {"rule": "tf/sg-open-admin-port", "resource": r.address, "msg": sprintf("ingress open to the Internet on port %d", [port])}
}

violations contains v if {
	some r in managed("aws_vpc_security_group_ingress_rule")
	some port in open_admin(r.config)
	v := {"rule": "tf/sg-open-admin-port", "resource": r.address, "msg": sprintf("ingress open to the Internet on port %d", [port])}
}

# ---------------------------------------------------------------- RDS

violations contains v if {
	some r in managed("aws_db_instance")
	not_true(cfg(r, "storage_encrypted"))
	v := {"rule": "tf/rds-unencrypted", "resource": r.address, "msg": "storage_encrypted is not true"}
}

violations contains v if {
	some r in managed("aws_rds_cluster")
	cfg(r, "engine_mode") != "serverless"
	not_true(cfg(r, "storage_encrypted"))
	v := {"rule": "tf/rds-unencrypted", "resource": r.address, "msg": "storage_encrypted is not true"}
}

violations contains v if {
	some t in ["aws_db_instance", "aws_rds_cluster_instance"]
	some r in managed(t)
	is_true(cfg(r, "publicly_accessible"))
	v := {"rule": "tf/rds-public", "resource": r.address, "msg": "publicly_accessible = true"}
}

# ---------------------------------------------------------------- IAM

allow(effect) if effect == null

allow(effect) if effect == "Allow"

star_statement(doc) if {
	some s in arr(obj(doc).Statement)
	allow(object.get(obj(s), "Effect", null))
	"*" in arr(object.get(obj(s), "Action", null))
}

# Policy documents of an IAM resource: its `policy`, the `policy` of inline_policy blocks, and
# the documents of AWS managed policies it attaches by ARN (tf_effective: effective_policies).
policy_docs(r) := array.concat(
	array.concat(
		[cfg(r, "policy") | r.type in iam_policy_types],
		[obj(ip).policy | r.type in iam_policy_types | {"aws_iam_role"}; some ip in arr(cfg(r, "inline_policy"))],
	),
	arr(cfg(r, "effective_policies")),
)

violations contains v if {
	some r in input.resources
	r.mode == "managed"
	some doc in policy_docs(r)
	star_statement(doc)
	v := {"rule": "tf/iam-wildcard-action", "resource": r.address, "msg": "an Allow statement has Action \"*\""}
}

violations contains v if {
	some d in input.resources
	d.mode == "data"
	d.type == "aws_iam_policy_document"
	some s in arr(cfg(d, "statement"))
	allow(object.get(obj(s), "effect", null))
	"*" in arr(object.get(obj(s), "actions", null))
	v := {"rule": "tf/iam-wildcard-action", "resource": d.address, "msg": "an Allow statement has actions [\"*\"]"}
}

# ---------------------------------------------------------------- EBS, KMS, CloudTrail

violations contains v if {
	some r in managed("aws_ebs_volume")
	not_true(cfg(r, "encrypted"))
	v := {"rule": "tf/ebs-unencrypted", "resource": r.address, "msg": "encrypted is not true"}
}

violations contains v if {
	some r in managed("aws_kms_key")
	cfg(r, "customer_master_key_spec") in {null, "SYMMETRIC_DEFAULT"}
	not_true(cfg(r, "enable_key_rotation"))
	v := {"rule": "tf/kms-rotation-disabled", "resource": r.address, "msg": "enable_key_rotation is not true"}
}

violations contains v if {
	some r in managed("aws_cloudtrail")
	is_false(cfg(r, "enable_logging"))
	v := {"rule": "tf/cloudtrail-logging-disabled", "resource": r.address, "msg": "enable_logging = false"}
}

# Event selectors that admit no event (tf_effective: x_sv_records_nothing) log nothing.
violations contains v if {
	some r in managed("aws_cloudtrail")
	cfg(r, "x_sv_records_nothing") == true
	v := {"rule": "tf/cloudtrail-logging-disabled", "resource": r.address, "msg": "the event selectors record no events"}
}
