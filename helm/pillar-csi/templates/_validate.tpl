{{/* Checks across values that the schema cannot express; included by the node DaemonSet. */}}
{{- define "pillar-csi.validate" -}}
{{- if and (eq .Values.tls.mode "none") (not .Values.tls.acknowledgePlaintext) -}}
{{- fail "tls.mode=none serves the agent API in plaintext: anything that reaches an agent's port can create, export and delete volumes. Set tls.acknowledgePlaintext=true to install it anyway, or leave tls.mode at generated (the default: the chart makes its own certificates), cert-manager or secrets" -}}
{{- end -}}
{{- if and (ne .Values.tls.mode "none") (eq (toString .Values.tls.controllerName) (toString .Values.tls.agentServerName)) -}}
{{- fail (printf "tls.controllerName and tls.agentServerName are both %s: the agents admit a client by that name and the controller checks an agent by it, so the controller's certificate would pass for an agent's and an agent's for the controller's. Give them different names" .Values.tls.controllerName) -}}
{{- end -}}
{{- if and (has .Values.tls.mode (list "generated" "cert-manager")) .Values.tls.agentIpAddresses -}}
{{- fail (printf "tls.agentIpAddresses (%s) would put the same addresses in every agent's certificate, so that one storage node's key could answer for another's agent: leave it empty, each agent's certificate carries its own agent.nodes.<node>.address" (join ", " .Values.tls.agentIpAddresses)) -}}
{{- end -}}
{{- if has .Values.tls.mode (list "generated" "cert-manager") -}}
{{- range $agent := include "pillar-csi.agentNames" . | fromJsonArray -}}
{{- $identity := include "pillar-csi.agentIdentity" (dict "root" $ "node" $agent) -}}
{{- if eq $identity (toString $.Values.tls.controllerName) -}}
{{- fail (printf "tls.controllerName is %s, the name of the agent %s's certificate: the controller's certificate would pass for that agent's and that agent's for the controller's. Give them different names" $identity $agent) -}}
{{- end -}}
{{- if gt (len $identity) 253 -}}
{{- fail (printf "the agent %s's certificate name %s is longer than 253 characters: shorten tls.agentServerName" $agent $identity) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if and (eq (toString .Values.snapshots.enabled) "true") (not (.Capabilities.APIVersions.Has "snapshot.storage.k8s.io/v1/VolumeSnapshot")) -}}
{{- fail "snapshots.enabled=true but the cluster serves no snapshot.storage.k8s.io/v1 VolumeSnapshot: install the external-snapshotter's CRDs (kubectl apply -k 'https://github.com/kubernetes-csi/external-snapshotter/client/config/crd') and its snapshot-controller (deploy/kubernetes/snapshot-controller) first, or set snapshots.enabled=auto (helm template: pass --api-versions snapshot.storage.k8s.io/v1/VolumeSnapshot)" -}}
{{- end -}}
{{- if .Values.metrics.serviceMonitor.enabled -}}
{{- if not .Values.metrics.enabled -}}
{{- fail "metrics.serviceMonitor.enabled=true but metrics.enabled=false: the workloads would serve no /metrics to scrape. Set metrics.enabled=true, or turn the ServiceMonitors off" -}}
{{- end -}}
{{- if and (not .Values.metrics.serviceMonitor.force) (not (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/ServiceMonitor")) -}}
{{- fail "metrics.serviceMonitor.enabled=true but the cluster serves no monitoring.coreos.com/v1 ServiceMonitor: install the Prometheus Operator (or kube-prometheus-stack) and its CRDs first, or set metrics.serviceMonitor.force=true to render them anyway (helm template: pass --api-versions monitoring.coreos.com/v1/ServiceMonitor)" -}}
{{- end -}}
{{- end -}}
{{- if .Values.metrics.prometheusRule.enabled -}}
{{- if not .Values.metrics.enabled -}}
{{- fail "metrics.prometheusRule.enabled=true but metrics.enabled=false: the workloads would serve no /metrics for the alerts to read. Set metrics.enabled=true, or turn the PrometheusRule off" -}}
{{- end -}}
{{- if and (not .Values.metrics.prometheusRule.force) (not (.Capabilities.APIVersions.Has "monitoring.coreos.com/v1/PrometheusRule")) -}}
{{- fail "metrics.prometheusRule.enabled=true but the cluster serves no monitoring.coreos.com/v1 PrometheusRule: install the Prometheus Operator (or kube-prometheus-stack) and its CRDs first, or set metrics.prometheusRule.force=true to render it anyway (helm template: pass --api-versions monitoring.coreos.com/v1/PrometheusRule)" -}}
{{- end -}}
{{- end -}}
{{- $_ := include "pillar-csi.agentStateDir" . -}}
{{- if and .Values.agent.nfs.enabled (not .Values.agent.nfs.exportRoots) -}}
{{- fail "agent.nfs.enabled=true needs agent.nfs.exportRoots: the host directories the exported datasets are mounted under (the mountpoints of the backends' pools or parent datasets, e.g. [/tank]). Without them a dataset zfs mounts in the agent's container is mounted there only, and rpc.mountd and nfsd never find it" -}}
{{- end -}}
{{- if not .Values.agent.nfs.enabled -}}
{{- range $node, $spec := .Values.agent.nodes -}}
{{- range $spec.backends -}}
{{- if eq .type "zfs-dataset" -}}
{{- fail (printf "agent.nodes.%s.backends: %s is a zfs-dataset backend (NFS exports) but agent.nfs.enabled=false: the agent's pod would have no nfsd and no rpc.mountd, and the backend would report NfsServerMissing. Set agent.nfs.enabled=true (with agent.nfs.exportRoots)" $node .name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $ports := dict -}}
{{- range $key, $port := dict "agent.port" .Values.agent.port "agent.healthPort" .Values.agent.healthPort "node.healthPort" .Values.node.healthPort "node.registrar.healthPort" .Values.node.registrar.healthPort -}}
{{- $p := toString (int $port) -}}
{{- if hasKey $ports $p -}}
{{- fail (printf "%s and %s are both %s: the agent and the node share the host network, their ports must differ" (get $ports $p) $key $p) -}}
{{- end -}}
{{- $_ := set $ports $p $key -}}
{{- end -}}
{{- end -}}
