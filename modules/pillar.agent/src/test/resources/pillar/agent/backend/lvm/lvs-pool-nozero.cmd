lvs --reportformat json --units b --nosuffix -o lv_name,lv_size,data_percent,lv_attr,zero vgcap/pool
