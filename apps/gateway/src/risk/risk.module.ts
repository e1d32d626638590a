import { Module } from '@nestjs/common';
import { ExchangeModule } from '@lib/exchange';
import { JournalModule } from '@lib/journal';
import { RateLimitModule } from '@lib/ratelimit';
import { RetailModule } from '@lib/retail';

import { AdminRecord } from './admin-record.service.js';
import { CancelOnDisconnect } from './cancel-on-disconnect.service.js';
import { ClientCancelAll } from './client-cancel-all.service.js';
import { DeadManSwitchController } from './dead-man-switch.controller.js';
import { DeadManSwitch } from './dead-man-switch.service.js';
import { Exposure } from './exposure.service.js';
import { KillSwitch } from './kill-switch.service.js';
import { MarketEvents } from './market-events.service.js';
import { OpenOrderAttribution } from './open-order-attribution.service.js';
import { OpenOrderFills } from './open-order-fills.service.js';
import { OpenOrders } from './open-orders.service.js';
import { OrderOrigins } from './order-origins.service.js';
import { OrderReservations } from './order-reservations.service.js';
import { ReducingLocks } from './reducing-locks.service.js';
import { OrderRisk } from './order-risk.service.js';
import { OrderThrottle } from './order-throttle.service.js';
import { PositionBook } from './position-book.service.js';
import { PriceBand } from './price-band.service.js';
import { RejectBreaker } from './reject-breaker.service.js';
import { RetailOrderView } from './retail-order-view.service.js';
import { RetailPositionBook } from './retail-position-book.service.js';
import { ReplaceReservations } from './replace-reservations.service.js';
import { RetailReservations } from './retail-reservations.service.js';
import { RetailSelfTrade } from './retail-self-trade.service.js';
import { RiskAdminController } from './risk-admin.controller.js';
import { RiskGate } from './risk-gate.service.js';
import { RiskLimitsSource } from './risk-limits-source.service.js';
import { RiskMetrics } from './risk.metrics.js';
import { SelfTradeGuard } from './self-trade.service.js';
import { TradingStates } from './trading-states.service.js';

/** Trading states, the kill switch and the pre-trade limits (issue 26): the risk step of the order path. */
@Module({
  controllers: [DeadManSwitchController, RiskAdminController],
  exports: [
    CancelOnDisconnect,
    OpenOrders,
    OrderOrigins,
    OrderRisk,
    RejectBreaker,
    RiskGate,
    RiskLimitsSource,
    RiskMetrics,
    TradingStates,
  ],
  imports: [ExchangeModule, JournalModule, RateLimitModule, RetailModule],
  providers: [
    AdminRecord,
    CancelOnDisconnect,
    ClientCancelAll,
    DeadManSwitch,
    Exposure,
    KillSwitch,
    MarketEvents,
    OpenOrderAttribution,
    OpenOrderFills,
    OpenOrders,
    OrderOrigins,
    OrderReservations,
    ReducingLocks,
    OrderRisk,
    OrderThrottle,
    PositionBook,
    PriceBand,
    RejectBreaker,
    ReplaceReservations,
    RetailOrderView,
    RetailPositionBook,
    RetailReservations,
    RetailSelfTrade,
    RiskGate,
    RiskLimitsSource,
    RiskMetrics,
    SelfTradeGuard,
    TradingStates,
  ],
})
export class RiskModule {}
