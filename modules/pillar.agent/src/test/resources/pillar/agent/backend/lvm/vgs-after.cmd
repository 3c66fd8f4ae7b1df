vgs --reportformat json --units b --nosuffix -o vg_name,vg_size,vg_free,vg_extent_size vgcap
