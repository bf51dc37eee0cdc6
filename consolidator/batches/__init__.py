"""Message Batches: the book of queued requests (`book`) and the tick-wide courier that submits and polls (`courier`)."""
