import { NotFoundError } from '@lib/core';

export class UnknownTopicError extends NotFoundError {
  constructor(readonly topic: string) {
    super(`No stream serves the topic "${topic}".`);
  }
}
