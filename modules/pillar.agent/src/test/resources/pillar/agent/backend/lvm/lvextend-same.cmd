lvextend -L 134217728b vgcap/pvc-a
