lvchange -an vgcap/pvc-t
