# version: fio-3.33
# captured: 2026-11-22T11:47:42Z on x86_64, 2 cores, client and server on one host; file = stdout and stderr together (2>&1)
fio --name=seqread --directory=/tmp/fb4-fio --rw=read --bs=1M --iodepth=16 --numjobs=1 --direct=1 --ioengine=libaio --size=64M --runtime=3 --time_based --output-format=json+
