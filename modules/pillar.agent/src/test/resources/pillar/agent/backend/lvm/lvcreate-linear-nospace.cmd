lvcreate -y --wipesignatures y --addtag pillar-csi -n pvc-big -L 10737418240b vgcap
