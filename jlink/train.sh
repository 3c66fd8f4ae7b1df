# Sourced by jlink/build: starts a workload from its runtime against a throw-away configuration until
# its Helidon readiness answers 200, to train the AOT cache and to measure launch-to-ready and idle RSS.
# The controller is given the emulated Kubernetes API of tools/pillar.sandbox (as dev/sandbox does).
# shellcheck shell=bash

# free_port: a TCP port no socket of this host uses, in any state, below the kernel's ephemeral range
# (an outgoing connection's local port is taken from that range, and a port that refuses a connection
# can still be one, or be in TIME_WAIT: binding it then fails with "Address already in use")
free_port() {
    local first span port used=" " table _sl addr _rest
    read -r first _ < /proc/sys/net/ipv4/ip_local_port_range
    span=$((first - 20000))
    ((span >= 1000)) || span=40000 # no room below the range: the check against the tables must do
    for table in /proc/net/tcp /proc/net/tcp6; do
        [[ -r $table ]] || continue
        while read -r _sl addr _rest; do
            if [[ $addr == *:* ]]; then used+="$((16#${addr##*:})) "; fi
        done < <(tail -n +2 "$table")
    done
    while :; do
        port=$((20000 + RANDOM % span))
        [[ $used == *" $port "* ]] || { echo "$port"; return; }
    done
}

# workload_args WORKLOAD DIR HEALTH_PORT: the workload's arguments for a run under DIR
workload_args() {
    local workload=$1 dir=$2 health=$3
    case "$workload" in
        agent)
            # no configfs here: a plain directory with nvmet's three folders stands in (as in dev/sandbox)
            mkdir -p "$dir/configfs/nvmet/hosts" "$dir/configfs/nvmet/ports" "$dir/configfs/nvmet/subsystems"
            cat > "$dir/agent.yaml" <<YAML
agent:
  listen: {host: 127.0.0.1, port: $(free_port)}
  state-dir: $dir/state
  configfs-root: $dir/configfs
  backends:
    - {name: train-thin, type: lvm-thin, volume-group: train, thin-pool: pool0}
health: {host: 127.0.0.1, port: $health}
YAML
            echo "--config"; echo "$dir/agent.yaml" ;;
        node)
            printf '%s\n' "--csi.socket=$dir/csi/csi.sock" --health.host=127.0.0.1 "--health.port=$health" \
                --node.id=train-worker "--node.state-dir=$dir/state" "--node.kubelet-dir=$dir/kubelet" \
                "--node.hostnqn-file=$dir/hostnqn" ;;
        controller)
            start_kube_api "$dir"
            printf '%s\n' "--csi.socket=$dir/csi/csi.sock" --health.host=127.0.0.1 "--health.port=$health" \
                "--kubernetes.kubeconfig=$dir/kubeconfig" --controller.namespace=pillar-system ;;
    esac
}

# start_kube_api DIR: the emulated Kubernetes API (fabric8's mock server) with the chart's CRDs
start_kube_api() {
    local dir=$1 deadline=$((SECONDS + 90)) jar='' candidate
    for candidate in tools/pillar.sandbox/target/pillar.sandbox-*.jar; do
        if [ -e "$candidate" ]; then jar=$candidate; break; fi
    done
    [ -n "$jar" ] || { echo "error: tools/pillar.sandbox is not built (./mvnw package)" >&2; return 1; }
    "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "tools/pillar.sandbox/target/modules/*:$jar" \
        pillar.sandbox.SandboxMain kube-api "$(free_port)" "$dir/kubeconfig" helm/pillar-csi/crds > "$dir/kube-api.log" 2>&1 &
    echo $! > "$dir/kube-api.pid"
    until [ -s "$dir/kubeconfig" ]; do
        [ $SECONDS -lt $deadline ] || { cat "$dir/kube-api.log" >&2; return 1; }
        sleep 0.2
    done
}

# run_to_ready DIR HEALTH_PORT COMMAND...: starts COMMAND, waits for readiness; sets RUN_PID, READY_MS
run_to_ready() {
    local dir=$1 health=$2 t0 deadline=$((SECONDS + 120))
    shift 2
    t0=$(date +%s%N)
    "$@" > "$dir/workload.log" 2>&1 &
    RUN_PID=$!
    until curl -fsS -o /dev/null "http://127.0.0.1:$health/observe/health/ready" 2>/dev/null; do
        if ! kill -0 "$RUN_PID" 2>/dev/null || [ $SECONDS -ge $deadline ]; then
            echo "error: the workload did not become ready; its log:" >&2
            cat "$dir/workload.log" >&2
            return 1
        fi
        sleep 0.01
    done
    READY_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

# stop DIR: SIGTERM to the workload (and the API emulator) and wait for them
stop_all() {
    local dir=$1 pid
    [ -n "${RUN_PID:-}" ] && { kill -TERM "$RUN_PID" 2>/dev/null || true; wait "$RUN_PID" 2>/dev/null || true; }
    RUN_PID=
    if [ -f "$dir/kube-api.pid" ]; then
        pid=$(cat "$dir/kube-api.pid")
        kill "$pid" 2>/dev/null || true
        # not a child of this shell (started from a process substitution): wait for it to go
        while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    fi
    rm -rf "$dir"
}

TRAIN_SETTLE=3
# train WORKLOAD: the training run of the runtime at $PILLAR_HOME; the JVM writes the AOT cache as it
# exits (SIGTERM)
train() {
    local workload=$1 out=$PILLAR_HOME dir health args=() arg
    dir=$(mktemp -d /tmp/pillar-train.XXXXXX)
    export MALLOC_ARENA_MAX=$MALLOC_ARENAS
    health=$(free_port)
    while IFS= read -r arg; do args+=("$arg"); done < <(launch_args "$out" "$workload" -XX:AOTCacheOutput)
    while IFS= read -r arg; do args+=("$arg"); done < <(workload_args "$workload" "$dir" "$health")
    run_to_ready "$dir" "$health" "$out/bin/java" "${args[@]}" || { stop_all "$dir"; return 1; }
    # a few seconds more: what runs just after readiness (the controller's informers and leader
    # election, the first health probes) is in the cache too
    sleep "$TRAIN_SETTLE"
    echo "pillar-$workload: training run ready after ${READY_MS} ms, stopped ${TRAIN_SETTLE} s later to write the AOT cache"
    kill -TERM "$RUN_PID"
    wait "$RUN_PID" || true
    RUN_PID=
    grep -h 'AOTCache creation is complete' "$dir/workload.log" || { cat "$dir/workload.log" >&2; stop_all "$dir"; return 1; }
    stop_all "$dir"
}

# measure_runtime WORKLOAD: size, then 3 launches through the launcher of the runtime at $PILLAR_HOME:
# launch to ready, idle RSS
measure_runtime() {
    local workload=$1 out=$PILLAR_HOME dir health args=() arg times=() rss comm
    dir=$(mktemp -d /tmp/pillar-measure.XXXXXX)
    health=$(free_port)
    while IFS= read -r arg; do args+=("$arg"); done < <(workload_args "$workload" "$dir" "$health")
    for _ in 1 2 3; do
        # AOTMode=on: the JVM refuses to start if the AOT cache cannot be used
        JDK_JAVA_OPTIONS=-XX:AOTMode=on run_to_ready "$dir" "$health" "$out/bin/pillar-$workload" "${args[@]}" \
            || { stop_all "$dir"; return 1; }
        times+=("$READY_MS")
        comm=$(cat "/proc/$RUN_PID/comm")
        sleep 5 # idle: past the first native heap trim (TrimNativeHeapInterval)
        rss=$(awk '/^VmRSS/ { printf "%.1f", $2 / 1024 }' "/proc/$RUN_PID/status")
        kill -TERM "$RUN_PID"; wait "$RUN_PID" || true
    done
    RUN_PID=
    stop_all "$dir"
    printf '  pillar-%-10s size %4s MiB (JDK %s MiB, app %s MiB, AOT cache %s MiB)  launch to ready %s ms  idle RSS %s MiB  (PID runs %s)\n' \
        "$workload" "$(du -sm "$out" | cut -f1)" "$(du -sm --exclude=app --exclude=pillar.aot "$out" | cut -f1)" \
        "$(du -sm "$out/app" | cut -f1)" "$(du -sm "$out/lib/pillar.aot" | cut -f1)" "$(IFS=/; echo "${times[*]}")" "$rss" "$comm"
}
