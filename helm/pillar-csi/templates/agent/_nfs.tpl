{{/*
The kernel's NFS server beside the agent (agent.nfs.enabled; docs/nfs.md, "Running the NFS server"),
from the agent's image (nfs-kernel-server). Each container that reads nfsd's control files mounts
nfsd's filesystem at /proc/fs/nfsd in its own mount namespace: a container's /proc is a procfs of its
own, on which the host's mount of it (if any) does not appear, and the runtime refuses a volume under
/proc. Both need privileged: mount(2) takes CAP_SYS_ADMIN, the runtimes' default AppArmor profile
refuses it and /proc/fs is read-only in an unprivileged container.
*/}}

{{/*
Init container: starts nfsd with NFSv4.2 only, unless it already runs (a restarted pod, the host's
own server), which is left as it is when it serves NFSv4.2 and refused when it does not. rpc.nfsd
sets the grace time (-G, /proc/fs/nfsd/nfsv4gracetime) before it starts the threads. The host's
/var/lib/nfs: without nfsdcld, nfsd keeps its NFSv4 clients' records (what lets them reclaim their
state after a restart) in /var/lib/nfs/v4recovery, which it opens in the mount namespace of the
rpc.nfsd that starts it; the image's would be gone with this container.
*/}}
{{- define "pillar-csi.nfsdStart" -}}
{{- $v := .Values.agent -}}
- name: nfsd
  image: {{ include "pillar-csi.workloadImage" (dict "root" . "image" .Values.images.agent) }}
  imagePullPolicy: {{ .Values.images.agent.pullPolicy }}
  command:
    - sh
    - -c
    - |
      set -eu
      d=/proc/fs/nfsd
      [ -e $d/threads ] || mount -t nfsd nfsd $d
      mkdir -p /var/lib/nfs/v4recovery
      serves() { case " $(cat $d/versions) " in *" +4.2 "*) return 0 ;; esac; return 1; }
      if [ "$(cat $d/threads)" -gt 0 ]; then
        if serves; then echo "nfsd already runs ($(cat $d/versions); $(cat $d/threads) threads): left as it is"; exit 0; fi
        echo "nfsd already runs without NFSv4.2 ($(cat $d/versions)): stop it (rpc.nfsd 0) or start it with -V 4.2" >&2
        exit 1
      fi
      rpc.nfsd -G {{ int $v.nfs.graceSeconds }} -N 3 -V 4.2 --no-udp {{ int $v.nfs.threads }}
      if ! serves || [ "$(cat $d/threads)" -eq 0 ]; then
        echo "rpc.nfsd did not start nfsd with NFSv4.2 ($(cat $d/versions); $(cat $d/threads) threads)" >&2
        exit 1
      fi
      echo "nfsd started: $(cat $d/versions); $(cat $d/threads) threads; grace $(cat $d/nfsv4gracetime) s"
  securityContext:
    # mount(2) of nfsd's filesystem and writes to its control files (sockets, threads, versions)
    privileged: true
  resources:
    {{- toYaml $v.nfs.nfsd.resources | nindent 4 }}
  volumeMounts:
    - name: nfs-state
      mountPath: /var/lib/nfs
{{- end -}}

{{/*
rpc.mountd, NFSv4 only (no MOUNT protocol, so no port and no rpcbind), in the foreground: the
container ends when it does and the kubelet restarts it; the liveness probe fails when no
rpc.mountd runs in the pod. It answers nfsd's upcalls (/proc/net/rpc/<cache>/channel, the host's network
namespace) from /var/lib/nfs/etab, which the agent's exportfs writes. The kernel resolves the paths
it answers with in its mount namespace, so it sees the host's root at /host (read-only; the
datasets, mounted below it, stay writable) and nfs.conf's rootdir puts every export path there:
the host's root filesystem is NFSv4's pseudo-root, as on a host without containers (the
container's own root, an overlay, cannot be exported). nfsd's filesystem gives it the kernel's
export features, without which it turns the pseudo-root off.
*/}}
{{- define "pillar-csi.mountd" -}}
{{- $v := .Values.agent -}}
- name: rpc-mountd
  image: {{ include "pillar-csi.workloadImage" (dict "root" . "image" .Values.images.agent) }}
  imagePullPolicy: {{ .Values.images.agent.pullPolicy }}
  command:
    - sh
    - -c
    - |
      set -eu
      [ -e /proc/fs/nfsd/threads ] || mount -t nfsd nfsd /proc/fs/nfsd
      exec rpc.mountd --foreground -N 2 -N 3 --no-udp
  livenessProbe:
    exec:
      command:
        - sh
        - -c
        - 'for f in /proc/[0-9]*/comm; do read -r n < "$f" || continue; [ "$n" = rpc.mountd ] && exit 0; done; echo "rpc.mountd does not run" >&2; exit 1'
    initialDelaySeconds: 5
    periodSeconds: 10
    timeoutSeconds: 5
    failureThreshold: 3
  securityContext:
    # mount(2) of nfsd's filesystem in its own /proc (a container's procfs shows no other's mount
    # of it); the rest (the upcall channels, owned by root, and the host's paths) needs no capability
    privileged: true
  resources:
    {{- toYaml $v.nfs.mountd.resources | nindent 4 }}
  volumeMounts:
    - name: nfs-state
      mountPath: /var/lib/nfs
    - name: nfs-exports
      mountPath: /etc/exports
      readOnly: true
    - name: host-root
      mountPath: /host
      readOnly: true
      mountPropagation: HostToContainer
    - name: nfs-conf
      mountPath: /etc/nfs.conf.d/pillar-csi.conf
      subPath: pillar-csi.conf
      readOnly: true
{{- end -}}
