lvremove -f vgcap/pvc-t
