{{/*
The generated mode's PKI as YAML {controller: DATA, agents: DATA}, each DATA the base64 `data` of a
Secret: the controller's tls.crt, tls.key (PKCS#8) and ca.crt; the agents' ca.crt and, for each
name of AGENTS, <name>.crt and <name>.key, a certificate for DNS <name>.<tls.agentServerName> (and
agent.nodes.<name>.address as an IP when set): (dict "root" $ "agents" AGENTS "existing" (dict
"controller" SECRET "agents" SECRET)), SECRET what lookup returned (an empty map when there is none).
Both existing Secrets complete for AGENTS and of one CA: their data, unchanged. Otherwise a new CA
and every certificate (ECDSA P-256): the CA's key is not kept, so a new agent means new certificates.
*/}}
{{- define "pillar-csi.generatedPki" -}}
{{- $c := (.existing.controller | default dict).data | default dict -}}
{{- $a := (.existing.agents | default dict).data | default dict -}}
{{- $agentKeys := list "ca.crt" -}}
{{- range $name := .agents }}{{ $agentKeys = concat $agentKeys (list (printf "%s.crt" $name) (printf "%s.key" $name)) }}{{ end -}}
{{- $reuse := and (get $c "ca.crt") (eq (get $c "ca.crt") (get $a "ca.crt")) -}}
{{- range $k := list "tls.crt" "tls.key" -}}
{{- if not (get $c $k) -}}{{- $reuse = false -}}{{- end -}}
{{- end -}}
{{- range $k := $agentKeys -}}
{{- if not (get $a $k) -}}{{- $reuse = false -}}{{- end -}}
{{- end -}}
{{- if $reuse -}}
{{- $kept := dict -}}
{{- range $k := $agentKeys }}{{ $_ := set $kept $k (get $a $k) }}{{ end -}}
{{- toYaml (dict "controller" (pick $c "tls.crt" "tls.key" "ca.crt") "agents" $kept) -}}
{{- else -}}
{{- $root := .root -}}
{{- $tls := $root.Values.tls -}}
{{- $days := int $tls.generated.validityDays -}}
{{- $ca := genCAWithKey (printf "%s-ca" (include "pillar-csi.fullname" $root)) $days (genPrivateKey "ecdsa") -}}
{{- $caCrt := $ca.Cert | b64enc -}}
{{- $agents := dict "ca.crt" $caCrt -}}
{{- range $name := .agents -}}
{{- $identity := include "pillar-csi.agentIdentity" (dict "root" $root "node" $name) -}}
{{- $address := ((get $root.Values.agent.nodes $name) | default dict).address -}}
{{- $key := genPrivateKey "ecdsa" -}}
{{- $cert := genSignedCertWithKey $identity (ternary (list $address) (list) (not (empty $address))) (list $identity) $days $ca $key -}}
{{- $_ := set $agents (printf "%s.crt" $name) ($cert.Cert | b64enc) -}}
{{- $_ := set $agents (printf "%s.key" $name) (include "pillar-csi.pkcs8" $key | b64enc) -}}
{{- end -}}
{{- $controllerKey := genPrivateKey "ecdsa" -}}
{{- $controller := genSignedCertWithKey $tls.controllerName (list) (list $tls.controllerName) $days $ca $controllerKey -}}
{{- toYaml (dict
  "controller" (dict "tls.crt" ($controller.Cert | b64enc) "tls.key" (include "pillar-csi.pkcs8" $controllerKey | b64enc) "ca.crt" $caCrt)
  "agents" $agents) -}}
{{- end -}}
{{- end -}}

{{/*
A P-256 key from genPrivateKey "ecdsa" (SEC1, "EC PRIVATE KEY", always 121 bytes: Go pads the
scalar) as PKCS#8 ("PRIVATE KEY"), the form both workloads read: the SEC1 bytes wrapped in the
fixed PrivateKeyInfo header {version 0, id-ecPublicKey, prime256v1, OCTET STRING of 121 bytes}.
*/}}
{{- define "pillar-csi.pkcs8" -}}
{{- $der := . | replace "-----BEGIN EC PRIVATE KEY-----" "" | replace "-----END EC PRIVATE KEY-----" "" | nospace | b64dec -}}
{{- if ne (len $der) 121 -}}
{{- fail (printf "pillar-csi.pkcs8: a P-256 SEC1 key has 121 bytes, this one %d" (len $der)) -}}
{{- end -}}
-----BEGIN PRIVATE KEY-----
{{ regexReplaceAll "(.{64})" (printf "%s%s" (b64dec "MIGTAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBHk=") $der | b64enc) "${1}\n" }}
-----END PRIVATE KEY-----
{{ end -}}
