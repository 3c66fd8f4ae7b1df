{{/*
The generated mode's PKI as YAML {controller: DATA, agents: {NAME: DATA}}, each DATA the base64
`data` of a Secret: tls.crt, tls.key (PKCS#8) and ca.crt; the controller's, and for each name of
AGENTS a certificate for DNS <name>.<tls.agentServerName> (and agent.nodes.<name>.address as an IP
when set): (dict "root" $ "agents" AGENTS "existing" (dict "controller" SECRET "agents" (dict NAME
SECRET))), SECRET what lookup returned (an empty map when there is none). The controller's and every
agent's existing Secret complete and of one CA: their data, unchanged. Otherwise a new CA and every
certificate (ECDSA P-256): the CA's key is not kept, so a new agent means new certificates.
*/}}
{{- define "pillar-csi.generatedPki" -}}
{{- $c := (.existing.controller | default dict).data | default dict -}}
{{- $ca := get $c "ca.crt" -}}
{{- $reuse := and $ca (get $c "tls.crt") (get $c "tls.key") -}}
{{- $kept := dict -}}
{{- range $name := .agents -}}
{{- $a := ((get $.existing.agents $name) | default dict).data | default dict -}}
{{- if not (and (get $a "tls.crt") (get $a "tls.key") (eq (get $a "ca.crt") $ca)) -}}{{- $reuse = false -}}{{- end -}}
{{- $_ := set $kept $name (pick $a "tls.crt" "tls.key" "ca.crt") -}}
{{- end -}}
{{- if $reuse -}}
{{- toYaml (dict "controller" (pick $c "tls.crt" "tls.key" "ca.crt") "agents" $kept) -}}
{{- else -}}
{{- $root := .root -}}
{{- $tls := $root.Values.tls -}}
{{- $days := int $tls.generated.validityDays -}}
{{- $ca := genCAWithKey (printf "%s-ca" (include "pillar-csi.fullname" $root)) $days (genPrivateKey "ecdsa") -}}
{{- $caCrt := $ca.Cert | b64enc -}}
{{- $agents := dict -}}
{{- range $name := .agents -}}
{{- $identity := include "pillar-csi.agentIdentity" (dict "root" $root "node" $name) -}}
{{- $address := ((get $root.Values.agent.nodes $name) | default dict).address -}}
{{- $key := genPrivateKey "ecdsa" -}}
{{- $cert := genSignedCertWithKey $identity (ternary (list $address) (list) (not (empty $address))) (list $identity) $days $ca $key -}}
{{- $_ := set $agents $name (dict "tls.crt" ($cert.Cert | b64enc) "tls.key" (include "pillar-csi.pkcs8" $key | b64enc) "ca.crt" $caCrt) -}}
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
