lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-thuge -V 1125899906842624b --thinpool pool vgcap
