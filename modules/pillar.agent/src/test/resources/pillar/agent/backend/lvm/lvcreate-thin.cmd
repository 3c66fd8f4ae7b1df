lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-t -V 134217728b --thinpool pool vgcap
