package kafkawhy.lab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * A consumer built against kafka-clients 0.10.1 (the seed report's connectors' client), compiled and
 * run by the lab against that old jar. It can only read message format v1, so a newer broker converts
 * every batch it serves it. It reads a topic from the beginning, over and over, for a given time,
 * with large fetch sizes, as a lagging connector catching up does.
 *
 * <p>Arguments: bootstrap servers, topic, seconds, max.partition.fetch.bytes.
 */
public final class LegacyConsumer {
  private LegacyConsumer() {}

  public static void main(String[] args) {
    String bootstrap = args[0];
    String topic = args[1];
    long seconds = Long.parseLong(args[2]);
    String partitionFetchBytes = args.length > 3 ? args[3] : "16777216";
    Properties props = new Properties();
    props.put("bootstrap.servers", bootstrap);
    props.put("client.id", "legacy-connector");
    props.put("enable.auto.commit", "false");
    props.put("max.partition.fetch.bytes", partitionFetchBytes);
    props.put("fetch.max.bytes", "268435456");
    props.put("receive.buffer.bytes", "1048576");
    props.put("key.deserializer", ByteArrayDeserializer.class.getName());
    props.put("value.deserializer", ByteArrayDeserializer.class.getName());
    long records = 0;
    int passes = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo p : consumer.partitionsFor(topic)) {
        partitions.add(new TopicPartition(topic, p.partition()));
      }
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long end = System.currentTimeMillis() + seconds * 1000;
      while (System.currentTimeMillis() < end) {
        ConsumerRecords<byte[], byte[]> batch = consumer.poll(500);
        records += batch.count();
        if (batch.isEmpty()) {
          consumer.seekToBeginning(Collections.unmodifiableList(partitions));
          passes++;
        }
      }
    }
    System.out.println(records + " records in " + passes + " passes");
  }
}
