lvcreate -y --wipesignatures y --addtag pillar-csi --zero y -n pvc-tz -V 4194304b --thinpool pool vgcap
