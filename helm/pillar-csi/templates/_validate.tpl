{{/* Checks across values that the schema cannot express; included by the node DaemonSet. */}}
{{- define "pillar-csi.validate" -}}
{{- $ports := dict -}}
{{- range $key, $port := dict "agent.port" .Values.agent.port "agent.healthPort" .Values.agent.healthPort "node.healthPort" .Values.node.healthPort "node.registrar.healthPort" .Values.node.registrar.healthPort -}}
{{- $p := toString (int $port) -}}
{{- if hasKey $ports $p -}}
{{- fail (printf "%s and %s are both %s: the agent and the node share the host network, their ports must differ" (get $ports $p) $key $p) -}}
{{- end -}}
{{- $_ := set $ports $p $key -}}
{{- end -}}
{{- end -}}
