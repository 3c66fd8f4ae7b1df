lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-tover -V 1073741824b --thinpool pool vgcap
