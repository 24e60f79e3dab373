/**
 * The `sqs` transport (Amazon SQS, standard and FIFO queues). Importing
 * this module registers it.
 *
 * @module
 */
import { transports } from "../../../engine/core/transport.ts";
import { sqsTransport } from "./transport.ts";

if (!transports.has(sqsTransport.name)) transports.register(sqsTransport);

export { sqsTransport };
export {
  DEDUPLICATION_HEADER,
  GROUP_HEADER,
  IDEMPOTENCY_ATTRIBUTE,
  parseDestination,
  SQS_SCHEME,
  sqsSink,
} from "./sink.ts";
export { readSqsOptions, SQS_OPTION_KEYS, type SqsChannelOptions } from "./options.ts";
