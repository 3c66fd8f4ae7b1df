{{/*
One storage node's agent configuration: (dict "root" $ "nodeName" "storage-1" "node" $node).
Backend keys are written as the agent reads them (parent-dataset, volume-group, thin-pool, over-provisioning-ratio:
a string, so that the agent reads the decimal as written).
*/}}
{{- define "pillar-csi.agentConfig" -}}
{{- $root := .root -}}
{{- $backends := list -}}
{{- $names := dict -}}
{{- range .node.backends -}}
{{- if hasKey $names .name -}}
{{- fail (printf "agent.nodes.%s.backends: the name %q is used twice (each backend of a node needs its own name)" $.nodeName .name) -}}
{{- end -}}
{{- $_ := set $names .name true -}}
{{- $backend := dict "name" .name "type" .type -}}
{{- if or (eq .type "zfs") (eq .type "zfs-dataset") -}}
{{- $_ := set $backend "pool" .pool -}}
{{- if .parentDataset }}{{- $_ := set $backend "parent-dataset" .parentDataset -}}{{- end -}}
{{- else -}}
{{- $_ := set $backend "volume-group" .volumeGroup -}}
{{- if eq .type "lvm-thin" }}{{- $_ := set $backend "thin-pool" .thinPool -}}
{{- if hasKey . "overProvisioningRatio" }}{{- $_ := set $backend "over-provisioning-ratio" (toString .overProvisioningRatio) -}}{{- end -}}
{{- end -}}
{{- end -}}
{{- $backends = append $backends $backend -}}
{{- end -}}
{{- $agent := dict
  "node-name" .nodeName
  "installation-id" ($root.Values.agent.installationId | default (printf "%s.%s" $root.Release.Namespace $root.Release.Name))
  "listen" (include "pillar-csi.agentListen" $root | fromYaml)
  "state-dir" (include "pillar-csi.agentStateDir" $root)
  "configfs-root" "/sys/kernel/config"
  "backends" $backends -}}
{{- /* an earlier release's state in the shared directory moves to this release's at start (ours only) */ -}}
{{- if ne (include "pillar-csi.agentStateDir" $root) (include "pillar-csi.agentLegacyStateDir" $root) -}}
{{- $_ := set $agent "legacy-state-dir" (include "pillar-csi.agentLegacyStateDir" $root) -}}
{{- end -}}
{{- if include "pillar-csi.tlsEnabled" $root -}}
{{- $dir := include "pillar-csi.agentTlsDir" (dict "root" $root "node" .nodeName) -}}
{{- $_ := set $agent "tls" (dict "cert" (printf "%s/tls.crt" $dir) "key" (printf "%s/tls.key" $dir) "ca" (printf "%s/ca.crt" $dir)
  "client-names" (list $root.Values.tls.controllerName)) -}}
{{- end -}}
{{- /* health.host unset: health and /metrics listen on the agent API's address, the node's */ -}}
{{- toYaml (dict "agent" $agent "health" (dict "port" (int $root.Values.agent.healthPort))
  "metrics" (dict "enabled" $root.Values.metrics.enabled) "log" (dict "format" $root.Values.logFormat "level" $root.Values.agent.logLevel)) -}}
{{- end -}}


{{/*
Where the agent API listens: agent.listenHost when set (0.0.0.0 only when written so), otherwise the
node's address, which the DaemonSet puts in PILLAR_NODE_IP (downward API status.hostIP).
*/}}
{{- define "pillar-csi.agentListen" -}}
{{- if .Values.agent.listenHost -}}
{{- toYaml (dict "host" .Values.agent.listenHost "port" (int .Values.agent.port)) -}}
{{- else -}}
{{- toYaml (dict "host-env" "PILLAR_NODE_IP" "port" (int .Values.agent.port)) -}}
{{- end -}}
{{- end -}}
