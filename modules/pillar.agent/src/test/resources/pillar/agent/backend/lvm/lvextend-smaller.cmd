lvextend -L 67108864b vgcap/pvc-a
