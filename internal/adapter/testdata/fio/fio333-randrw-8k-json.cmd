# version: fio-3.33
# captured: 2026-11-22T11:47:37Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
fio --name=randrw --directory=/tmp/fb4-fio --rw=randrw --rwmixread=80 --bs=8k --iodepth=32 --numjobs=4 --direct=1 --ioengine=libaio --size=16M --runtime=3 --time_based --group_reporting --output-format=json
