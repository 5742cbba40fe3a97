# Version 2: the details record which institution took the bank over.
schema "0002 add acquiring institution" do
  entity "FailedBankInfo" do
    string :name
    string :city
    string :state

    has_one :details, inverse: "FailedBankDetails.info", deletionRule: "Cascade"
  end

  entity "FailedBankDetails" do
    datetime  :closeDate
    datetime  :updateDate
    integer32 :zip
    string    :acquiringInstitution

    has_one :info, inverse: "FailedBankInfo.details", deletionRule: "Cascade"
  end
end
