lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-x -V 134217728b --thinpool nopool vgcap
