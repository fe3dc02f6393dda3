plimsoll worker --search 20261127t040000-cd34 --index 0 --bootstrap kafka.kafka.svc:9092
plimsoll worker --search 20261127t040000-cd34 --index 1 --bootstrap kafka.kafka.svc:9092
plimsoll worker --search 20261127t040000-cd34 --index 2 --bootstrap kafka.kafka.svc:9092
