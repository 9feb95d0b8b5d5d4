/**
 * A code-first workflow you can run alone: book a flight and a hotel in parallel, hold
 * the booking for a short durable timer, charge once, and send the confirmation without
 * waiting. Types flow from each task into the workflow code.
 *
 *   npx weft run examples/code-first-trip.ts --input '{"traveller":"Ana","nights":3}'
 */
import { defineTask, defineWorkflow, Workflow } from 'weft-engine';

/** What the trip is started with. */
export interface TripRequest {
  traveller: string;
  nights: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Books a seat. */
export const bookFlight = defineTask('book-flight', async (input: { traveller: string }) => {
  await pause(100);
  return { seat: '12A', for: input.traveller, price: 240 };
});

/** Books a room. */
export const bookHotel = defineTask('book-hotel', async (input: { nights: number }) => {
  await pause(100);
  return { room: 101, price: 90 * input.nights };
});

/** Charges the card once. */
export const charge = defineTask('charge', async (input: { amount: number }) => {
  await pause(50);
  return { receipt: `R-${input.amount}` };
});

/** Sends the confirmation. */
export const confirm = defineTask('confirm', async (input: { to: string; text: string }) => ({
  sent: input.text.length > 0,
}));

/** The trip workflow. */
export default defineWorkflow(
  'trip',
  class Trip extends Workflow {
    // A property: JSON state every branch of this instance shares.
    stage = 'new';

    async handle(request: TripRequest) {
      const [flight, hotel] = await this.execute(
        [bookFlight, { traveller: request.traveller }],
        [bookHotel, { nights: request.nights }],
      );
      this.stage = 'held';
      await this.waitFor(200);
      const { receipt } = await this.execute(charge, { amount: flight.price + hotel.price });
      await this.dispatch(confirm, {
        to: request.traveller,
        text: `Seat ${flight.seat}, room ${hotel.room}`,
      });
      this.stage = 'booked';
      return { seat: flight.seat, room: hotel.room, receipt, bookedAt: this.date().toISOString() };
    }
  },
);
