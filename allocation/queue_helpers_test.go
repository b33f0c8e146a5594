package allocation

import "github.com/hpcsched/hpcsched/queue"

func queueJob(account, partition string) *queue.Job {
	return &queue.Job{Account: account, Partition: partition}
}
