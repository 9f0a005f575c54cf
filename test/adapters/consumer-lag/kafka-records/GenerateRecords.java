// Writes __consumer_offsets record keys and values of every version with Apache Kafka's own
// generated message classes (kafka-group-coordinator, the same code the group coordinator
// serialises with), so the decoder is tested on bytes Kafka produces, not on bytes we wrote.
//
// Regenerate (Kafka jars from lab/fetch-kafka.sh):
//   java -cp '.cache/kafka/lib/*' test/adapters/consumer-lag/kafka-records/GenerateRecords.java \
//     > test/adapters/consumer-lag/kafka-records/records.json
import java.util.*;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.coordinator.group.generated.*;

public class GenerateRecords {
  static String hex(byte[] b) {
    StringBuilder s = new StringBuilder();
    for (byte x : b) s.append(String.format("%02x", x));
    return s.toString();
  }
  static String bytes(short version, Message m) {
    java.nio.ByteBuffer buf = MessageUtil.toVersionPrefixedByteBuffer(version, m);
    byte[] out = new byte[buf.remaining()];
    buf.get(out);
    return hex(out);
  }
  public static void main(String[] args) {
    List<String> rows = new ArrayList<>();
    for (short v = 0; v <= 1; v++) {
      OffsetCommitKey k = new OffsetCommitKey().setGroup("orders-app").setTopic("orders").setPartition(7);
      rows.add(String.format("{\"kind\":\"offset-key\",\"version\":%d,\"hex\":\"%s\"}", v, bytes(v, k)));
    }
    for (short v = 0; v <= 4; v++) {
      OffsetCommitValue val = new OffsetCommitValue().setOffset(123456789012L).setMetadata("m\u00e9ta").setCommitTimestamp(1733100000123L);
      if (v == 1) val.setExpireTimestamp(1733186400123L);
      if (v >= 3) val.setLeaderEpoch(5);
      rows.add(String.format("{\"kind\":\"offset-value\",\"version\":%d,\"hex\":\"%s\"}", v, bytes(v, val)));
    }
    GroupMetadataKey gk = new GroupMetadataKey().setGroup("orders-app");
    rows.add(String.format("{\"kind\":\"group-key\",\"version\":2,\"hex\":\"%s\"}", bytes((short) 2, gk)));
    for (short v = 0; v <= 4; v++) {
      List<GroupMetadataValue.MemberMetadata> members = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        GroupMetadataValue.MemberMetadata m = new GroupMetadataValue.MemberMetadata()
          .setMemberId("consumer-orders-app-1-" + i)
          .setClientId("consumer-orders-app-1")
          .setClientHost("/127.0.0." + (i + 1))
          .setSessionTimeout(45000)
          .setSubscription(new byte[] {0, 1, 2})
          .setAssignment(new byte[] {3, 4});
        if (v >= 1) m.setRebalanceTimeout(300000);
        if (v >= 3) m.setGroupInstanceId(i == 0 ? "static-0" : null);
        members.add(m);
      }
      GroupMetadataValue g = new GroupMetadataValue().setProtocolType("consumer").setGeneration(12).setProtocol("range")
        .setLeader("consumer-orders-app-1-0").setMembers(members);
      if (v >= 2) g.setCurrentStateTimestamp(1733100000456L);
      rows.add(String.format("{\"kind\":\"group-value\",\"version\":%d,\"hex\":\"%s\"}", v, bytes(v, g)));
    }
    GroupMetadataValue empty = new GroupMetadataValue().setProtocolType("consumer").setGeneration(13).setProtocol(null).setLeader(null).setMembers(new ArrayList<>()).setCurrentStateTimestamp(1733100000789L);
    rows.add(String.format("{\"kind\":\"group-value\",\"version\":3,\"empty\":true,\"hex\":\"%s\"}", bytes((short) 3, empty)));
    System.out.println("[\n  " + String.join(",\n  ", rows) + "\n]");
  }
}
