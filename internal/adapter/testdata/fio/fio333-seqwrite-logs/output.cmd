# version: fio-3.33
# captured: 2026-11-22T11:47:46Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
fio --name=seqwrite --directory=/tmp/fb4-fio --rw=write --bs=1M --iodepth=16 --numjobs=2 --direct=1 --ioengine=libaio --size=32M --runtime=3 --time_based --output-format=json --write_bw_log=seqwrite --write_lat_log=seqwrite --write_iops_log=seqwrite --log_avg_msec=1000
