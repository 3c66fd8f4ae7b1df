zfs send -nP zp/k8s/src@clone_dst
