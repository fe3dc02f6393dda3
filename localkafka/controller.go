package localkafka

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// metadataLog is the KRaft quorum's log; its leader is the active controller.
const metadataLog = "__cluster_metadata"

// ActiveController asks the cluster behind cl which node is its active KRaft controller: the
// leader of the metadata log's quorum (DescribeQuorum, which a broker forwards to the
// controllers). A Metadata response cannot say: a KRaft broker puts a random live broker in its
// controller id field, since clients do not talk to the controllers. A fault that keeps its
// connections open (SIGSTOP, a cut link) on the active controller stalls every leader's
// AlterPartition until its requests time out, so tests and fault plans need to know which it is.
func ActiveController(ctx context.Context, cl *kgo.Client) (int32, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	topic := kmsg.NewDescribeQuorumRequestTopic()
	topic.Topic = metadataLog
	topic.Partitions = []kmsg.DescribeQuorumRequestTopicPartition{kmsg.NewDescribeQuorumRequestTopicPartition()}
	req.Topics = []kmsg.DescribeQuorumRequestTopic{topic}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return 0, fmt.Errorf("asking for the KRaft quorum: %w", err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return 0, fmt.Errorf("asking for the KRaft quorum: %w", err)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return 0, fmt.Errorf("asking for the KRaft quorum: the answer holds %d topics, want the metadata log's one partition", len(resp.Topics))
	}
	p := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
		return 0, fmt.Errorf("asking for the KRaft quorum: %w", err)
	}
	if p.LeaderID < 0 {
		return 0, fmt.Errorf("the KRaft quorum has no leader (an election is under way)")
	}
	return p.LeaderID, nil
}

// NotController picks the first of ids that is not the active KRaft controller of the cluster
// behind cl, for a fault that must not fall on it, and returns the controller with it. It fails
// when every candidate is the controller.
func NotController(ctx context.Context, cl *kgo.Client, ids ...int32) (pick, controller int32, err error) {
	controller, err = ActiveController(ctx, cl)
	if err != nil {
		return 0, 0, err
	}
	pick, err = firstOther(controller, ids)
	return pick, controller, err
}

// firstOther is the first of ids that is not skip.
func firstOther(skip int32, ids []int32) (int32, error) {
	for _, id := range ids {
		if id != skip {
			return id, nil
		}
	}
	return 0, fmt.Errorf("every candidate %v is the active controller %d", ids, skip)
}
