lvremove -f vgcap/pvc-a
