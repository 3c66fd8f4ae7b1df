{{/* The host directory every release's agent state lives under; the agent DaemonSet mounts it whole. */}}
{{- define "pillar-csi.agentStateRoot" -}}/var/lib/pillar-csi{{- end -}}

{{/* Where the chart kept every release's agent state before each release had its own: moved from at start. */}}
{{- define "pillar-csi.agentLegacyStateDir" -}}/var/lib/pillar-csi/agent{{- end -}}

{{/*
This release's agent state directory: agent.stateDir, else <root>/<namespace>.<release>/agent (a
namespace has no dot, so no two releases share it). Refused: a path that is not absolute and clean
(no . or .., no doubled or trailing /), one inside or holding the legacy directory (the agent moves
that one onto this one with a rename), the node plugin's.
*/}}
{{- define "pillar-csi.agentStateDir" -}}
{{- $root := include "pillar-csi.agentStateRoot" . -}}
{{- $dir := .Values.agent.stateDir | default (printf "%s/%s.%s/agent" $root .Release.Namespace .Release.Name) -}}
{{- if or (not (isAbs $dir)) (ne (clean $dir) $dir) (eq $dir "/") -}}
{{- fail (printf "agent.stateDir must be an absolute path without . or .. (no doubled or trailing /), is %q" $dir) -}}
{{- end -}}
{{- $legacy := include "pillar-csi.agentLegacyStateDir" . -}}
{{- if hasPrefix (printf "%s/" $legacy) $dir -}}
{{- fail (printf "agent.stateDir %s is inside %s, where earlier releases kept the agents' state and which the agent moves onto agent.stateDir at start: choose a directory outside it" $dir $legacy) -}}
{{- end -}}
{{- if hasPrefix (printf "%s/" $dir) $legacy -}}
{{- fail (printf "agent.stateDir %s holds %s and the other releases' state directories: choose a directory of this release's own, e.g. %s/%s.%s/agent" $dir $legacy $root .Release.Namespace .Release.Name) -}}
{{- end -}}
{{- $node := printf "%s/node" $root -}}
{{- if or (eq $dir $node) (hasPrefix (printf "%s/" $node) $dir) -}}
{{- fail (printf "agent.stateDir %s is the node plugin's state directory %s: choose another" $dir $node) -}}
{{- end -}}
{{- $dir -}}
{{- end -}}

{{/* "true" when the state directory is outside the state root, so that the DaemonSet mounts it on its own. */}}
{{- define "pillar-csi.agentStateDirOutsideRoot" -}}
{{- if not (hasPrefix (printf "%s/" (include "pillar-csi.agentStateRoot" .)) (include "pillar-csi.agentStateDir" .)) -}}true{{- end -}}
{{- end -}}
