lvremove -f vgmissing/pvc-a
