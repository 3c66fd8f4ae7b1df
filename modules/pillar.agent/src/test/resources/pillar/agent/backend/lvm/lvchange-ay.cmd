lvchange -ay -K vgcap/pvc-t
