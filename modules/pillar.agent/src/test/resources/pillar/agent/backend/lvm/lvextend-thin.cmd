lvextend -L 268435456b vgcap/pvc-t
