{{/*
The generated mode's PKI as YAML {controller: DATA, agent: DATA}, each DATA the base64 `data` of a
kubernetes.io/tls Secret (tls.crt, tls.key, ca.crt): (dict "root" $ "existing" (dict "controller"
SECRET "agent" SECRET)), SECRET what lookup returned (an empty map when there is none). Both existing
Secrets complete: their data, unchanged. Otherwise a new CA and both certificates (ECDSA P-256).
*/}}
{{- define "pillar-csi.generatedPki" -}}
{{- $c := (.existing.controller | default dict).data | default dict -}}
{{- $a := (.existing.agent | default dict).data | default dict -}}
{{- $keys := list "tls.crt" "tls.key" "ca.crt" -}}
{{- $reuse := true -}}
{{- range $k := $keys -}}
{{- if not (and (get $c $k) (get $a $k)) -}}{{- $reuse = false -}}{{- end -}}
{{- end -}}
{{- if $reuse -}}
{{- toYaml (dict "controller" (pick $c "tls.crt" "tls.key" "ca.crt") "agent" (pick $a "tls.crt" "tls.key" "ca.crt")) -}}
{{- else -}}
{{- $tls := .root.Values.tls -}}
{{- $days := int $tls.generated.validityDays -}}
{{- $ca := genCAWithKey (printf "%s-ca" (include "pillar-csi.fullname" .root)) $days (genPrivateKey "ecdsa") -}}
{{- $caCrt := $ca.Cert | b64enc -}}
{{- $agentKey := genPrivateKey "ecdsa" -}}
{{- $agent := genSignedCertWithKey $tls.agentServerName $tls.agentIpAddresses (list $tls.agentServerName) $days $ca $agentKey -}}
{{- $controllerKey := genPrivateKey "ecdsa" -}}
{{- $controller := genSignedCertWithKey $tls.controllerName (list) (list $tls.controllerName) $days $ca $controllerKey -}}
{{- toYaml (dict
  "controller" (dict "tls.crt" ($controller.Cert | b64enc) "tls.key" (include "pillar-csi.pkcs8" $controllerKey | b64enc) "ca.crt" $caCrt)
  "agent" (dict "tls.crt" ($agent.Cert | b64enc) "tls.key" (include "pillar-csi.pkcs8" $agentKey | b64enc) "ca.crt" $caCrt)) -}}
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
